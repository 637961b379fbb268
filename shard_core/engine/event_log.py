"""EventLog: the agent's durable events beside its session log, for attach, sync and resume.

Every event except `message_delta` and `tool_update` (ephemeral: `message_complete` carries the
whole message, `tool_result` a tool's final state) is appended as one JSONL line. `seq` continues
from the last line after a restart, so a client's `since` stays valid across agent processes. The
file is a replayable view; the session JSONL stays the source of truth for the conversation. An
image's bytes (a prompt's pasted image) go to `blobs/` beside it as in the session log
(`session_blobs.py`), and reading puts them back.
"""

from __future__ import annotations

import bisect
import os
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from shard_core.protocol.events import Event
from shard_core.types.base import DEFERRED

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=DEFERRED)
EPHEMERAL = frozenset({"message_delta", "tool_update"})


class EventLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._seqs: list[int] = []
        self._offsets: list[int] = []
        self._load_index()
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _load_index(self) -> None:
        if not self.path.exists():
            return
        offset = 0
        with self.path.open("rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break  # a torn last line: cut below, the next append starts clean
                seq = _seq_of(line)
                if seq is not None and (not self._seqs or seq > self._seqs[-1]):
                    self._seqs.append(seq)
                    self._offsets.append(offset)
                offset += len(line)
        if self.path.stat().st_size > offset:
            with self.path.open("r+b") as f:
                f.truncate(offset)

    @property
    def next_seq(self) -> int:
        return self._seqs[-1] + 1 if self._seqs else 0

    def append(self, event: Event) -> None:
        if event.type in EPHEMERAL:
            return
        data = _blobbed(event.model_dump_json().encode("utf-8"), self.path.parent) + b"\n"
        offset = os.lseek(self._fd, 0, os.SEEK_END)
        os.write(self._fd, data)
        self._seqs.append(event.seq)
        self._offsets.append(offset)

    def read(
        self, since: int, until: int | None = None, limit: int = 500
    ) -> tuple[list[Event], bool]:
        """Events with since < seq <= until, oldest first, at most `limit`; and if more follow."""
        start = bisect.bisect_right(self._seqs, since)
        stop = len(self._seqs) if until is None else bisect.bisect_right(self._seqs, until)
        wanted = min(stop, start + limit)
        if start >= wanted:
            return [], False
        events: list[Event] = []
        with self.path.open("rb") as f:
            f.seek(self._offsets[start])
            for _ in range(wanted - start):
                line = _unblobbed(f.readline(), self.path.parent)
                events.append(EVENT_ADAPTER.validate_json(line))
        return events, wanted < stop

    def close(self) -> None:
        os.close(self._fd)


def _blobbed(line: bytes, folder: Path) -> bytes:
    """`line` with its images' bytes in blob files (session_blobs is imported only when a line
    has an image: the kernel's start does not load it)."""
    if b'"type":"image"' not in line:
        return line
    from shard_core.engine.session_blobs import externalise

    return externalise(line, folder)


def _unblobbed(line: bytes, folder: Path) -> bytes:
    if b"blob:sha256:" not in line:
        return line
    from shard_core.engine.session_blobs import internalise

    return internalise(line, folder)


def _seq_of(line: bytes) -> int | None:
    try:
        return EVENT_ADAPTER.validate_json(line).seq
    except ValidationError:
        return None  # a damaged line is skipped, like in the session log
