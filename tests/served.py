"""A real server for wire-level tests: ``attention-talk serve`` in a subprocess on a free loopback
port (h11, the settings' limits, exactly as deployed), and raw-socket helpers to talk to it.
The ``served`` fixture (conftest.py) starts one per test session and stops it after."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Short timeouts so the tests are quick; everything else is the default.
ENV = {"ATTENTION_TALK_BODY_TIMEOUT": "1.5", "ATTENTION_TALK_HEADER_TIMEOUT": "1.5",
       "ATTENTION_TALK_WORKERS": "1", "ATTENTION_TALK_ACCESS_LOG": "false", "ATTENTION_TALK_LOG_LEVEL": "error"}

# slides/ decks built without the model
DESIGNED_DECKS = ("attention-step-by-step", "attention-walkthrough", "deepseek-attention")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(env: dict[str, str] | None = None, timeout: float = 120, log: Path | None = None) -> Iterator[str]:
    """``attention-talk serve`` on a free port; yields its base URL once /healthz answers and the
    designed decks are built (``warm``). ``log``: a file for the server's log (stderr)."""
    port = free_port()
    full_env = {**os.environ, **ENV, **(env or {}),
                "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    with contextlib.ExitStack() as files:
        stderr = files.enter_context(log.open("wb")) if log else None
        proc = subprocess.Popen([sys.executable, "-m", "attention_talk", "serve", "--host", "127.0.0.1",
                                 "--port", str(port)], env=full_env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=stderr)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, url, timeout)
            warm(url)
            yield url
        finally:
            stop(proc)


def wait_healthy(proc: subprocess.Popen, url: str, timeout: float = 120) -> None:
    """Return once ``url``/healthz answers 200; RuntimeError if the process ends or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("attention-talk serve did not start")
        time.sleep(0.1)


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM (a graceful shutdown), then SIGKILL if it has not ended within ``timeout`` s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def warm(url: str, decks: tuple[str, ...] = DESIGNED_DECKS) -> None:
    """Wait for the work the server starts once it answers (web/startup.py): the decks read and
    ``decks`` built, by asking for them (a request for a deck being built waits for it), so the tests
    meet the server warm, as they did when start-up built everything. The model, and the deck drawn
    from it, still load in the background."""
    for deck in decks:
        with urllib.request.urlopen(f"{url}/api/decks/{deck}", timeout=120) as r:
            assert r.status == 200


def connect(url: str, timeout: float = 10) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=timeout)


def read_response(sock: socket.socket) -> tuple[int | None, bytes]:
    """The status and everything the server sent until it closed (None: closed without a word)."""
    data = b""
    with contextlib.suppress(ConnectionResetError, BrokenPipeError):
        while chunk := sock.recv(65536):
            data += chunk
    if not data.startswith(b"HTTP/1."):
        return None, data
    return int(data.split(b" ", 2)[1]), data


def send_all(sock: socket.socket, data: bytes) -> bool:
    """Send ``data``; False when the server has closed the connection meanwhile."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True
