"""A session's lineage as one numbered sequence of entries, across fork boundaries.

Stable entry index: the root session's entries count from 0 in file order; a forked session
continues after its parent's entries up to and including the fork point, its own header left
out (the header is not on any branch). For a linear lineage this equals the entry's position in
the active branch, which is how the compactor numbers its breadcrumbs; indices never change as
entries are appended, compacted or the agent restarts.

`LineageResolver` is what RecallTool is built with: session id → the lineage's JSONL paths,
oldest ancestor first. `directory_resolver(sessions_dir)` follows `parent_session` links in
the headers of `sessions_dir/<id>.jsonl` files, which is how SessionStore lays them out.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from shard_core.engine.recall.index import ENTRY, RecallIndex
from shard_core.types import SessionHeaderEntry
from shard_core.types.errors import SessionNotFoundError

log_ = logging.getLogger("shard.recall")

_PARENT = re.compile(r"s-[A-Za-z0-9_-]{1,64}")
"""A parent a header may name: a session id (Shard's are `s-` + 16 hex; fixtures use words)."""

LineageResolver = Callable[[str], Sequence[Path]]
"""session id → JSONL paths of its lineage, oldest ancestor first, the session itself last."""


def header_of(log: Path) -> SessionHeaderEntry | None:
    """The log's header entry (its first line), or None when the first line is not one."""
    with log.open("rb") as f:
        first = f.readline(1 << 20)
    try:
        header = ENTRY.validate_json(first)
    except ValidationError:
        return None
    return header if isinstance(header, SessionHeaderEntry) else None


def _parent_of(log: Path) -> str | None:
    header = header_of(log)
    parent = header.details.parent_session if header else None
    if parent is not None and not _PARENT.fullmatch(parent):
        log_.warning("%s: parent session %r is not a session name; lineage stops", log, parent)
        return None  # a header naming `../x` would otherwise lead the lineage out of the folder
    return parent


def lineage_paths(log: Path) -> list[Path]:
    """`log` and its ancestors (oldest first), found beside it by their `<id>.jsonl` names."""
    if not log.is_file():
        raise SessionNotFoundError(f"no session log at {log}")
    chain = [log]
    while (parent := _parent_of(chain[-1])) is not None:
        path = log.with_name(f"{parent}.jsonl")
        if not path.is_file() or path in chain:
            log_.warning("%s: parent session %s not found; lineage stops there", chain[-1], parent)
            break
        chain.append(path)
    return chain[::-1]


def directory_resolver(sessions_dir: Path) -> LineageResolver:
    """Resolver for sessions stored as `sessions_dir/<session_id>.jsonl`."""

    def resolve(session_id: str) -> list[Path]:
        return lineage_paths(sessions_dir / f"{session_id}.jsonl")

    return resolve


@dataclass
class Segment:
    """The part of one file that belongs to the lineage: local positions lo..hi (inclusive)."""

    index: RecallIndex
    lo: int
    hi: int
    base: int = 0
    """Stable index of local position `lo`."""

    @property
    def size(self) -> int:
        return max(0, self.hi - self.lo + 1)

    def to_global(self, pos: int) -> int:
        return self.base + pos - self.lo


class Lineage:
    """Open indices over a lineage's files; close when done."""

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        base = 0
        for segment in segments:
            segment.base = base
            base += segment.size
        self.size = base

    @classmethod
    def open(cls, paths: Sequence[Path]) -> Lineage:
        segments: list[Segment] = []
        for i, path in enumerate(paths):
            index = RecallIndex.open(path)
            fork = index.meta.get("parent_entry", "")
            if i > 0 and fork:
                _cut_at(segments, fork)
            segments.append(Segment(index, 1 if i > 0 else 0, index.count - 1))
        return cls(segments)

    def close(self) -> None:
        for segment in self.segments:
            segment.index.close()

    def __enter__(self) -> Lineage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def locate(self, index: int) -> tuple[Segment, int] | None:
        """(segment, local position) of a stable index."""
        for segment in self.segments:
            if segment.base <= index < segment.base + segment.size:
                return segment, segment.lo + index - segment.base
        return None

    def index_of(self, entry_id: str) -> int | None:
        for segment in reversed(self.segments):
            pos = segment.index.position_of(entry_id)
            if pos is not None and segment.lo <= pos <= segment.hi:
                return segment.to_global(pos)
        return None

    def parts(self, lo: int, hi: int) -> list[tuple[Segment, int, int]]:
        """(segment, local lo, local hi) covering stable indices lo..hi, oldest first."""
        found: list[tuple[Segment, int, int]] = []
        for segment in self.segments:
            start, end = max(lo, segment.base), min(hi, segment.base + segment.size - 1)
            if start <= end:
                found.append(
                    (segment, segment.lo + start - segment.base, segment.lo + end - segment.base)
                )
        return found


def _cut_at(segments: list[Segment], fork: str) -> None:
    """Keep the ancestors' entries up to and including the fork entry."""
    for i in range(len(segments) - 1, -1, -1):
        segment = segments[i]
        pos = segment.index.position_of(fork)
        if pos is not None and segment.lo <= pos <= segment.hi:
            segment.hi = pos
            for dropped in segments[i + 1 :]:
                dropped.index.close()
            del segments[i + 1 :]
            return
    log_.warning("fork point %s not found in the parent sessions; keeping them whole", fork)
