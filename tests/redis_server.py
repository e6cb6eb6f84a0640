"""A real ``redis-server`` for the room tests, on a free loopback port: append-only with fsync on
every write (a restart keeps its rooms), or with no persistence at all (a restart comes back empty,
as a Redis without persistence or a failover to an empty replica does); and ``two_servers``, the
cluster the room tests share: Redis started and two ``attention-talk serve`` processes on it, warm."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from served import ENV, ROOT, free_port, stop, wait_healthy, warm

REDIS = shutil.which("redis-server")


class RedisServer:
    def __init__(self, folder: Path, persistent: bool = True) -> None:
        self.folder, self.persistent, self.port, self.proc = folder, persistent, free_port(), None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert REDIS, "redis-server is missing: .ci/run installs it"
        keep = ["--appendonly", "yes", "--appendfsync", "always"] if self.persistent else ["--appendonly", "no"]
        self.proc = subprocess.Popen([REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *keep,
                                      "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def start_server(redis_port: int | None, extra: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """``attention-talk serve`` on a free port (sharing the Redis on ``redis_port``, if given)."""
    port = free_port()
    env = {**os.environ, **ENV, **(extra or {}),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    if redis_port:
        env["ATTENTION_TALK_REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
    proc = subprocess.Popen([sys.executable, "-m", "attention_talk", "serve", "--host", "127.0.0.1", "--port",
                             str(port)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def two_servers(redis: RedisServer, decks: Path, deck: str) -> Iterator[tuple[RedisServer, list]]:
    """``redis`` started, and two servers of the decks in ``decks`` sharing it, both warm for ``deck``
    (the talk meets them warm: their decks read after start-up); every process stopped after."""
    redis.start()
    env = {"ATTENTION_TALK_DECKS_DIR": str(decks), "ATTENTION_TALK_MODEL_PRELOAD": "false"}
    servers = [start_server(redis.port, env) for _ in range(2)]  # both start at once
    try:
        for proc, url in servers:
            wait_healthy(proc, url)
            warm(url, (deck,))
        yield redis, servers
    finally:
        for proc, _ in servers:
            stop(proc)
        redis.kill()
