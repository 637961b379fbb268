"""EventHistory: the gateway's read-only view of an agent's `events.jsonl`, written by its kernel.

Never opens the file for writing (the kernel owns it, and may be appending right now): a line
without its newline is not read yet. An index of seq → offset grows incrementally as the file
does, so paging and the status tail cost one read of the new bytes, not a rescan.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shard_core.engine.session_blobs import internalise
from shard_core.protocol.events import AGENT_START_FAILED

MAX_LIMIT = 5000
TAIL_LINES = 2000
TAIL_BATCH = 64
_SEQ = re.compile(rb'^\{"agent_id":"[^"\\]*","seq":(\d+)')


@dataclass
class Tail:
    """What the newest events say: the last status and usage events, the last seq, and a start
    failure when the agent's kernel logged one after its last status (a booted agent's first
    event is a status)."""

    status: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None
    last_seq: int = -1
    start_failure: dict[str, Any] | None = None


@dataclass
class EventHistory:
    path: Path
    _end: int = 0
    _seqs: list[int] = field(default_factory=list[int])
    _offsets: list[int] = field(default_factory=list[int])
    _tail: Tail | None = None
    _tail_end: int = -1

    def refresh(self) -> None:
        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        if size < self._end:  # the kernel cut a torn line or the file was replaced
            self._end, self._seqs, self._offsets, self._tail = 0, [], [], None
        if size == self._end:
            return
        with self.path.open("rb") as f:
            f.seek(self._end)
            chunk = f.read(size - self._end)
        offset = self._end
        for line in chunk.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            seq = _seq_of(line)
            if seq is not None and (not self._seqs or seq > self._seqs[-1]):
                self._seqs.append(seq)
                self._offsets.append(offset)
            offset += len(line)
        self._end = offset

    def page(self, since: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Events with seq > since, oldest first, at most `limit`; and whether more follow."""
        self.refresh()
        start = bisect.bisect_right(self._seqs, since)
        stop = min(len(self._seqs), start + limit)
        return self._read(start, stop), stop < len(self._seqs)

    def matching(self, since: int, marker: bytes) -> list[dict[str, Any]]:
        """Events with seq > since whose logged line contains `marker` (only those are parsed:
        the events watcher reads every status a kernel logs without decoding its other events)."""
        self.refresh()
        start = bisect.bisect_right(self._seqs, since)
        if start >= len(self._seqs):
            return []
        with self.path.open("rb") as f:
            f.seek(self._offsets[start])
            chunk = f.read(self._end - self._offsets[start])
        found: list[dict[str, Any]] = []
        for line in chunk.splitlines():
            if marker in line:
                try:
                    found.append(json.loads(line))
                except ValueError:
                    continue
        return found

    @property
    def last_seq(self) -> int:
        return self._seqs[-1] if self._seqs else -1

    def tail(self) -> Tail:
        """The last status and usage events (cached until the file grows)."""
        self.refresh()
        if self._tail is not None and self._tail_end == self._end:
            return self._tail
        tail = Tail(last_seq=self.last_seq)
        stop, floor = len(self._seqs), max(0, len(self._seqs) - TAIL_LINES)
        while stop > floor and (tail.status is None or tail.usage is None):
            start = max(floor, stop - TAIL_BATCH)
            for event in reversed(self._read(start, stop)):
                kind = event.get("type")
                if tail.status is None and kind == "status":
                    tail.status = event
                elif tail.status is None and kind == "error" and tail.start_failure is None:
                    if event.get("code") == AGENT_START_FAILED:
                        tail.start_failure = event
                elif tail.usage is None and kind == "usage":
                    tail.usage = event
            stop = start
        self._tail, self._tail_end = tail, self._end
        return tail

    def _read(self, start: int, stop: int) -> list[dict[str, Any]]:
        if start >= stop:
            return []
        events: list[dict[str, Any]] = []
        with self.path.open("rb") as f:
            f.seek(self._offsets[start])
            for _ in range(stop - start):
                try:
                    events.append(json.loads(internalise(f.readline(), self.path.parent)))
                except ValueError:
                    continue
        return events


def _seq_of(line: bytes) -> int | None:
    match = _SEQ.match(line)
    if match is not None:
        return int(match.group(1))
    try:
        value = json.loads(line).get("seq")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None
