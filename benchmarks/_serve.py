"""Shared by the HTTP benchmarks: run a real server process on loopback, timed from spawn to the
first 200 from /healthz; and a headless Chromium launched the way the browser tests launch it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(cmd: list[str] | None = None, env: dict[str, str] | None = None,
            timeout: float = 60) -> Iterator[tuple[str, float]]:
    """Start ``cmd`` (default: ``attention-talk serve``) on a free loopback port; yield its base URL
    and the seconds from spawn to the first healthy answer; stop it with SIGTERM."""
    with spawned(cmd, env, timeout) as (url, seconds, _):
        yield url, seconds


@contextlib.contextmanager
def spawned(cmd: list[str] | None = None, env: dict[str, str] | None = None,
            timeout: float = 60) -> Iterator[tuple[str, float, subprocess.Popen]]:
    """``serving``, also yielding the process (read at the first healthy answer: ``main_thread_cpu``)."""
    port = free_port()
    cmd = cmd or [str(BIN / "attention-talk"), "serve"]
    cmd = [*cmd, "--host", "127.0.0.1", "--port", str(port)]
    full_env = {**os.environ, "ATTENTION_TALK_WORKERS": "1", **(env or {})}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=full_env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - start > timeout:
                    raise RuntimeError(f"server {cmd} did not start") from None
                time.sleep(0.01)
        yield url, time.perf_counter() - start, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def settled(url: str, timeout: float = 180) -> None:
    """Wait until the server's background start-up work is over: the model loaded (when installed)
    and every deck built (a manifest builds its deck's frames if the warm-up has not yet), so that
    what a benchmark times does not share the cores with it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/model", timeout=30) as r:
                if json.load(r).get("loaded"):
                    break
        except urllib.error.HTTPError as exc:
            if exc.code == 503:  # no model installed: nothing to wait for
                break
            raise
        time.sleep(0.2)
    build_decks(url)


def build_decks(url: str, *, model: bool = True) -> None:
    """Ask for every deck's manifest (only the designed decks' with ``model=False``), which builds
    its frames if the start-up warm-up has not yet."""
    with urllib.request.urlopen(f"{url}/api/decks", timeout=120) as r:
        decks = json.load(r)
    for deck in decks:
        if model or not deck.get("needs_model"):
            with urllib.request.urlopen(f"{url}/api/decks/{deck['id']}", timeout=120) as r:
                r.read()


def main_thread_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) the process's main thread has used so far; None off Linux. On a
    busy machine this varies far less than the wall-clock time."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def chromium() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        kwargs = {"args": CHROMIUM_ARGS}
        if os.path.exists(CHROMIUM):
            kwargs["executable_path"] = CHROMIUM
        browser = p.chromium.launch(**kwargs)
        try:
            yield browser
        finally:
            browser.close()


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"
