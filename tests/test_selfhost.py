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
import time
import urllib.request
import zipfile
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
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.read()


def pip(python: Path | str, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True,
                   cwd="/", timeout=240)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv outside the checkout with only the wheel (and its dependencies) installed."""
    tmp = tmp_path_factory.mktemp("selfhost")
    wheels = tmp / "wheels"
    # The Dockerfile's build stage: `pip wheel --no-deps --wheel-dir /wheels .`
    pip(sys.executable, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(ROOT))
    [wheel] = wheels.glob("attention_talk-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for folder in ("slides", "templates", "static"):
        assert any(n.startswith(f"attention_talk/_data/{folder}/") for n in names), folder
    assert "attention_talk/_data/static/js/main.js" in names
    assert not any("__pycache__" in n for n in names)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    # The runtime stage: `pip install /wheels/*.whl` (here with pip's cache, to keep the test quick).
    pip(venv / "bin" / "python", "install", str(wheel))
    return venv


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
        deadline = time.monotonic() + 30
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
