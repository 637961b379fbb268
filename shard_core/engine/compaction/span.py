"""WindowSpan: the live window as the turn loop observed it, paired and scanned as it grew.

The boundary's last per-entry passes — the scan for the cut and the pairing of calls with
results — only depend on what came before, except where a result arrives after its call was
seen without one, or a call id is answered twice. The span does both passes as batches of
entries arrive and marks itself stale on either exception; a stale span, or one that is not
exactly the window being compacted (same entry objects, same indices), is not used.

For a safe cut (no call before it is answered after it), the pairing of the window's first k
entries is the first `offsets[k]` blocks of the whole window's: nothing before the cut looks
past it. tests/unit/engine/compaction/test_cache.py holds it to `normalize` and `scan_window`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from shard_core.engine.compaction.cache import EntryParts, Pairing
from shard_core.engine.compaction.context import BlockIndex, Indexer
from shard_core.engine.compaction.cut import Scan, Window
from shard_core.types import NormalizedBlock, SessionEntry


class WindowSpan:
    def __init__(self, window: Window | None = None) -> None:
        self.window = window
        """The live window the span began at; with `positions` and `others`, the live window
        of any branch that continues the span's (same entries, no compaction since)."""
        self.positions: list[int] = []
        """Branch positions of the context entries added, stale or not."""
        self.others: list[int] = []
        """Branch positions of the other entries seen (checkpoints, permissions)."""
        self.entries: list[SessionEntry] = []
        self.indices: list[int] = []
        self.last_position = -1
        """Branch position of the last entry added (context or not)."""
        self.last_entry: SessionEntry | None = None
        self.stale = False
        self._pairing = Pairing({})
        self._offsets: list[int] = [0]
        self._indexer = Indexer()
        self._answered: dict[str, int] = {}  # call id → position of its result
        self._unanswered: set[str] = set()
        self._open_until = -1
        self._tokens: list[int] = []
        self._safe: list[bool] = []
        self._user: list[bool] = []

    def extend(
        self,
        parts: Sequence[EntryParts],
        positions: Sequence[int],
        others: Sequence[int],
        branch: Sequence[SessionEntry],
    ) -> None:
        """Add the context entries (their cached parts, at these branch positions) and note
        the other entries' positions: the branch's new entries since the last call."""
        self.last_position = len(branch) - 1
        self.last_entry = branch[-1] if branch else None
        self.positions += positions
        self.others += others
        if self.stale or not parts:
            return
        results = self._pairing.results
        for p, position in zip(parts, positions, strict=True):
            for call in p.scan.results:
                if call in self._answered or call in self._unanswered:
                    self.stale = True  # answered twice, or after it was seen unanswered
                self._answered[call] = position
            for call, found in p.results:
                if call in results:
                    self.stale = True
                results[call] = found
        if self.stale:
            return
        out = self._pairing.out
        for p, position in zip(parts, positions, strict=True):
            self.entries.append(p.entry)
            self.indices.append(p.index)
            at = len(out)
            self._pairing.entry(p)
            for i in range(at, len(out)):
                self._indexer.add(out[i], i)
            self._offsets.append(len(out))
            self._scan(p, position)

    def _scan(self, p: EntryParts, position: int) -> None:
        self._tokens.append(p.scan.tokens)
        row = p.scan.row
        if row is None:
            self._safe.append(False)
            self._user.append(False)
            return
        has_result, starts_turn, calls = row
        self._safe.append(self._open_until < position and not has_result)
        self._user.append(starts_turn)
        for call in calls:
            answered = self._answered.get(call)
            if answered is None:
                self._unanswered.add(call)
            elif answered > self._open_until:
                self._open_until = answered

    def starts(self, entries: Sequence[SessionEntry], indices: Sequence[int]) -> bool:
        """Do these entries begin with this span's (the same objects at the same indices)?"""
        n = len(self.entries)
        return (
            not self.stale
            and n <= len(entries)
            and all(map(operator.is_, entries[:n], self.entries))
            and list(indices[:n]) == self.indices
        )

    def matches(self, entries: Sequence[SessionEntry], indices: Sequence[int]) -> bool:
        """Is this span exactly these entries (the same objects) at these indices?"""
        return (
            not self.stale
            and len(entries) == len(self.entries)
            and all(map(operator.is_, entries, self.entries))
            and list(indices) == self.indices
        )

    def scan(self) -> Scan:
        return Scan(list(self._tokens), list(self._safe), list(self._user))

    def blocks(self, keep_from: int) -> tuple[list[NormalizedBlock], BlockIndex]:
        """The blocks of the first `keep_from` entries (a safe cut) and their index."""
        return self._indexer.prefix(self._pairing.out, self._offsets[keep_from])
