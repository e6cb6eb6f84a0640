"""The Docker image's recipe, proven without a Docker engine: build the wheel, install it into a
fresh virtual environment outside the checkout as the Dockerfile does, run the Dockerfile's CMD (on
loopback) with its ENV, its HEALTHCHECK, two pages, then SIGTERM: a clean, graceful exit."""

from __future__ import annotations

import json
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
DECK = "attention-step-by-step"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each Dockerfile line, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1] if " " in ln else "") for ln in lines]


def stages() -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for ins, args in instructions():
        if ins == "FROM":
            out.append([])
        if out:  # ARGs before the first FROM belong to no stage
            out[-1].append((ins, args))
    return out


def global_args() -> dict[str, str]:
    args: dict[str, str] = {}
    for ins, rest in instructions():
        if ins == "FROM":
            break
        if ins == "ARG" and "=" in rest:
            k, v = rest.split("=", 1)
            args[k] = v
    return args


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for ins, args in stages()[-1]:
        if ins == "ENV":
            env.update(dict(pair.split("=", 1) for pair in shlex.split(args)))
    return env


def final(ins_name: str) -> str:
    return [args for ins, args in stages()[-1] if ins == ins_name][-1]


def test_dockerfile_shape() -> None:
    build, runtime = stages()
    image = global_args()["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.12-slim@sha256:[0-9a-f]{64}", image)  # pinned by digest
    assert build[0][1] == "${PYTHON_IMAGE} AS build" and runtime[0][1] == "${PYTHON_IMAGE}"
    assert any(ins == "RUN" and "pip wheel" in args and "--no-deps" in args for ins, args in build)
    # dependencies from the lock file, in a layer that comes before (and does not depend on) the code
    lock_install = next(i for i, (ins, args) in enumerate(runtime)
                        if ins == "RUN" and "--require-hashes" in args and "requirements.lock" in args)
    code_copy = next(i for i, (ins, args) in enumerate(runtime) if ins == "COPY" and args.startswith("--from=build"))
    assert lock_install < code_copy
    assert all(ins != "COPY" or "requirements.lock" in args for ins, args in runtime[:lock_install])
    user = final("USER")
    assert user and user not in ("root", "0")
    assert final("EXPOSE") == "8000"
    assert "/healthz" in final("HEALTHCHECK")
    # settings come from the environment only, so `docker run -e ATTENTION_TALK_HOST=...` works
    assert json.loads(final("CMD")) == ["attention-talk", "serve"]
    assert image_env()["ATTENTION_TALK_HOST"] == "0.0.0.0" and "ATTENTION_TALK_WORKERS" in image_env()
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "*" in ignored  # everything not named is left out of the build context


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    # a ceiling, not a speed test: on a loaded machine a page may take seconds
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read()


class Install:
    """The Dockerfile's two stages, run in a background thread: build the wheel (`pip wheel --no-deps
    --wheel-dir /wheels .`), then install it into a fresh venv outside the checkout (`pip install
    /wheels/*.whl`, here with pip's cache, and by this interpreter's pip aimed at the venv with
    ``--python``, which skips installing pip itself into the venv). Started as soon as collection
    ends (tests/conftest.py calls ``prepare_in_background``), so its ~20 s of pip overlap the
    other tests; the ``installed`` fixture waits for it."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="attention-talk-selfhost-"))
        self.log = self.tmp / "pip.log"
        self.wheel: Path | None = None
        self.error: BaseException | None = None
        self.proc: subprocess.Popen | None = None
        self.cancelled = False
        self.done = threading.Event()
        threading.Thread(target=self._run, name="selfhost-install", daemon=True).start()

    def _pip(self, *args: str) -> None:
        with self.log.open("a") as log:
            if self.cancelled:
                raise RuntimeError("cancelled")
            self.proc = subprocess.Popen([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                                         cwd="/", stdout=log, stderr=subprocess.STDOUT)
            code = self.proc.wait(timeout=240)
        if code:
            raise RuntimeError(f"pip {' '.join(args)} failed ({code}):\n{self.log.read_text()}")

    def _run(self) -> None:
        try:
            wheels = self.tmp / "wheels"
            self._pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(ROOT))
            [self.wheel] = wheels.glob("attention_talk-*.whl")
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)], check=True, timeout=120)
            self._pip("--python", str(self.venv / "bin" / "python"), "install", str(self.wheel))
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()

    @property
    def venv(self) -> Path:
        return self.tmp / "venv"

    def result(self, timeout: float = 480) -> tuple[Path, Path]:
        """(the wheel, the venv), once both stages have finished."""
        if not self.done.wait(timeout):
            raise TimeoutError(f"building and installing the wheel took over {timeout} s")
        if self.error is not None:
            raise self.error
        assert self.wheel is not None
        return self.wheel, self.venv

    def close(self) -> None:
        self.cancelled = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        self.done.wait(30)
        # Deleting the venv (thousands of files) takes seconds: a detached rm does it, unwaited.
        subprocess.Popen(["rm", "-rf", str(self.tmp)], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


_install: Install | None = None


def prepare_in_background(items: list | None = None) -> Install | None:
    """Start building and installing the wheel now, if a selected test (``items``) needs it; called
    once collection ends (tests/conftest.py), which closes what this returns at the end."""
    global _install
    if _install is None and (items is None or any("installed" in item.fixturenames for item in items)):
        _install = Install()
    return _install


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """A fresh venv outside the checkout with only the wheel (and its dependencies) installed."""
    install = prepare_in_background()  # already under way since collection ended
    assert install is not None
    try:
        wheel, venv = install.result()
        names = zipfile.ZipFile(wheel).namelist()
        for folder in ("slides", "templates", "static"):
            assert any(n.startswith(f"attention_talk/_data/{folder}/") for n in names), folder
        assert "attention_talk/_data/static/js/main.js" in names
        assert not any("__pycache__" in n for n in names)
        yield venv
    finally:
        install.close()


def test_wheel_serves_the_talk_and_stops_gracefully(installed, tmp_path) -> None:
    port = free_port()
    cmd = json.loads(final("CMD"))
    cmd = [str(installed / "bin" / cmd[0]), *cmd[1:]]
    # as `docker run -e ATTENTION_TALK_HOST=127.0.0.2 -e ATTENTION_TALK_PORT=...`: the server must
    # listen where the environment says (127.0.0.2 is loopback; the default 127.0.0.1 would not answer)
    host = "127.0.0.2"
    env = {"PATH": f"{installed / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           **image_env(), "ATTENTION_TALK_HOST": host, "ATTENTION_TALK_PORT": str(port)}
    log = (tmp_path / "server.log").open("w+")
    server = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60  # two workers each compute every frame: slow on a busy machine
        while True:
            try:
                if get(f"http://{host}:{port}/healthz")[0] == 200:
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    pytest.fail(f"server did not start:\n{log.read()}")
                time.sleep(0.1)
        health = json.loads(final("HEALTHCHECK").split("CMD", 1)[1])
        health = [a.replace("127.0.0.1", host) for a in health]  # in the image the server is on 0.0.0.0
        subprocess.run([str(installed / "bin" / health[0]), *health[1:]], env=env, check=True, timeout=10)
        status, body = get(f"http://{host}:{port}/talk/{DECK}")
        assert status == 200 and f'data-deck="{DECK}"'.encode() in body
        status, body = get(f"http://{host}:{port}/static/js/main.js")
        assert status == 200 and b"import" in body
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    log.seek(0)
    out = log.read()
    assert code == 0, out
    assert "Finished server process" in out  # uvicorn's graceful shutdown ran to its end
    assert f"GET /talk/{DECK} HTTP/1.1\" 200" in out  # the access log: one line per request
    assert "Traceback" not in out, out


def test_lock_file_pins_every_dependency_with_hashes() -> None:
    """requirements.lock (what the image installs) pins each runtime dependency to one version."""
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {m.group(1).lower().replace("_", "-") for m in re.finditer(r"^([A-Za-z0-9_.-]+)==\S+ \\$", lock, re.M)}
    for dep in deps:
        name = re.match(r"[A-Za-z0-9_.-]+", dep).group(0).lower().replace("_", "-")
        assert name in pinned, f"{name} is a dependency but not in requirements.lock (regenerate it)"
    blocks = re.split(r"\n(?=[A-Za-z0-9])", lock.strip())
    assert all("--hash=sha256:" in b for b in blocks if not b.startswith("#"))
