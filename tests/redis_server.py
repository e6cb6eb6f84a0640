"""A real ``redis-server`` for the room tests, on a free loopback port: append-only with fsync on
every write (a restart keeps its rooms), or with no persistence at all (a restart comes back empty,
as a Redis without persistence or a failover to an empty replica does)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from served import free_port

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
