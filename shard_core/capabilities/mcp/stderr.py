"""StderrTail: a stdio server's stderr, captured to the agent's log and kept bounded.

The server writes into a pipe; a daemon thread reads it, logs the first lines to the
`shard.mcp` logger (so a chatty server cannot flood the agent's log) and keeps the last
64 KiB in memory for error messages and `/mcp`. Known secret values (the process's and the
server's expanded `${VAR}` values) are replaced by `[secret]` in both: a server that echoes its
token on a startup error must not put it in the log or a tool result.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from typing import IO

from shard_core.types.secrets import KnownSecrets

log = logging.getLogger("shard.mcp")

MAX_BYTES = 64 * 1024
MAX_LOGGED_LINES = 200


class StderrTail:
    def __init__(self, server: str, secrets: KnownSecrets | None = None) -> None:
        self.server = server
        self.secrets = secrets if secrets is not None else KnownSecrets()
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._logged = 0
        self._lock = threading.Lock()

    def open(self) -> IO[str]:
        """A pipe's write end for one server process; the reader runs until it is closed."""
        read_fd, write_fd = os.pipe()
        thread = threading.Thread(
            target=self._read, args=(read_fd,), name=f"mcp-stderr-{self.server}", daemon=True
        )
        thread.start()
        return os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")

    def text(self, lines: int | None = None) -> str:
        with self._lock:
            data = b"".join(self._chunks).decode("utf-8", "replace")
        kept = data.splitlines()
        return self.secrets.redact("\n".join(kept[-lines:] if lines else kept))

    def _read(self, fd: int) -> None:
        pending = b""
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(4096):
                self._keep(chunk)
                pending += chunk
                *lines, pending = pending.split(b"\n")
                pending = pending[-4096:]
                for line in lines:
                    self._log(line)
        if pending:
            self._log(pending)

    def _keep(self, chunk: bytes) -> None:
        with self._lock:
            self._chunks.append(chunk)
            self._size += len(chunk)
            while self._size > MAX_BYTES and len(self._chunks) > 1:
                self._size -= len(self._chunks.popleft())

    def _log(self, line: bytes) -> None:
        self._logged += 1
        if self._logged <= MAX_LOGGED_LINES:
            text = self.secrets.redact(line.decode("utf-8", "replace"))[:1000]
            log.info("mcp server %s: %s", self.server, text)
        elif self._logged == MAX_LOGGED_LINES + 1:
            log.info("mcp server %s: more stderr lines are kept but not logged", self.server)
