"""EntryCache: per-entry compaction work, done once per entry and kept by the compactor.

Entries are immutable, so what compaction derives from one entry alone — its token estimate and
boundary facts (cut.py), its blocks before pairing (normalize.py) — is valid for as long as the
entry is the same object at the same stable index. The turn loop feeds the cache as entries
arrive (`DeterministicCompactor.observe`); an entry it never saw (a restart, a session file) is
worked out when a compaction first needs it, so the output never depends on the warm-up.

What is left is the pairing: one look-ahead dict built from the cached results of the span,
then a walk over the cached items that does what `normalize` does — same blocks, same order
(tests/unit/engine/compaction/test_cache.py checks it against `normalize`). The observed
window (span.py) does that walk as entries arrive too, so a boundary normally only slices.
"""

from __future__ import annotations

from collections.abc import Sequence

from shard_core.engine.compaction.context import Facts
from shard_core.engine.compaction.cut import EntryScan, scan_entry
from shard_core.engine.compaction.normalize import (
    BASH_TOOLS,
    SKIPPED_TOOLS,
    PairedResult,
    bash_block,
    bash_command,
    call_block,
    result_block,
    result_text,
    said_block,
    thinking_block,
)
from shard_core.engine.compaction.redact import redact
from shard_core.types import MessageEntry, NormalizedBlock, SessionEntry

_BLOCK, _CALL, _SKIP, _BASH, _RESULT = range(5)
_REDACTED_CAP = 20_000


class _Item:
    """One step of `normalize`'s walk over an entry: a finished block, or a call or result
    whose block depends on what the span pairs it with (kept in `memo` once made)."""

    __slots__ = ("block", "call_id", "command", "index", "memo", "name", "op")

    def __init__(self, op: int, index: int, call_id: str = "", name: str = "") -> None:
        self.op = op
        self.index = index
        self.call_id = call_id
        self.name = name
        self.command = ""
        self.block: NormalizedBlock | None = None
        self.memo: tuple[PairedResult | None, str, NormalizedBlock] | None = None


class EntryParts:
    __slots__ = ("entry", "index", "items", "names", "results", "scan", "static")

    def __init__(self, entry: SessionEntry, index: int) -> None:
        self.entry = entry
        self.index = index
        self.scan: EntryScan = scan_entry(entry)
        self.results: list[tuple[str, PairedResult]] = []
        self.items: list[_Item] = []
        self.static: list[NormalizedBlock] | None = None
        """The entry's blocks when none needs pairing (no result, no bash or skipped call)."""
        self.names: dict[str, str] = {}
        """Tool name by call id, for the calls among `static`."""


def _parts(entry: SessionEntry, index: int) -> EntryParts:
    parts = EntryParts(entry, index)
    if entry.type == "tool_result":
        d = entry.details
        text = result_text(d.result.content)
        found = PairedResult(index, d.name, text, d.result.is_error, d.result.details)
        parts.results.append((d.tool_call_id, found))
        parts.items.append(_Item(_RESULT, index, d.tool_call_id, d.name))
    elif entry.type == "message":
        _message_parts(entry, index, parts)
    if all(item.op in (_BLOCK, _CALL) for item in parts.items):
        parts.static = [item.block for item in parts.items if item.block is not None]
        parts.names = {i.call_id: i.name for i in parts.items if i.op == _CALL}
    return parts


def _message_parts(entry: MessageEntry, index: int, parts: EntryParts) -> None:
    kind = entry.details.message.role
    texts: list[str] = []

    def flush() -> None:
        text = (texts[0] if len(texts) == 1 else "\n".join(texts)).strip()
        texts.clear()
        if text:
            _add(parts, _Item(_BLOCK, index), said_block(kind, index, text))

    for block in entry.details.message.content:
        if block.type == "text":
            texts.append(block.text)
            continue
        if texts:
            flush()
        if block.type == "tool_call":
            name = block.name
            if name in SKIPPED_TOOLS:
                parts.items.append(_Item(_SKIP, index, block.id, name))
            elif name in BASH_TOOLS:
                item = _Item(_BASH, index, block.id, name)
                item.command = bash_command(block.input)
                parts.items.append(item)
            else:
                call = call_block(index, block.id, name, block.input)
                _add(parts, _Item(_CALL, index, block.id, name), call)
        elif block.type == "tool_result":
            text = result_text(block.content)
            found = PairedResult(index, "", text, block.is_error, {})
            parts.results.append((block.tool_call_id, found))
            parts.items.append(_Item(_RESULT, index, block.tool_call_id))
        elif block.type == "thinking" and block.thinking.strip():
            _add(parts, _Item(_BLOCK, index), thinking_block(index, block.thinking))
    if texts:
        flush()


def _add(parts: EntryParts, item: _Item, block: NormalizedBlock) -> None:
    item.block = block
    parts.items.append(item)


class Pairing:
    """`normalize`'s pairing walk over cached items: the look-ahead `results` (call id → its
    result), and the names and folded calls seen so far. Walking entries in order gives the
    blocks `normalize` gives for them; a span (span.py) keeps one walking as entries arrive."""

    def __init__(self, results: dict[str, PairedResult]) -> None:
        self.results = results
        self.names: dict[str, str] = {}
        self.folded: set[str] = set()
        self.out: list[NormalizedBlock] = []

    def entry(self, parts: EntryParts) -> None:
        if parts.static is not None:  # finished blocks and plain calls: nothing to pair
            self.out.extend(parts.static)
            if parts.names:
                self.names.update(parts.names)
            return
        for item in parts.items:
            self.walk(item)

    def walk(self, item: _Item) -> None:
        op = item.op
        if item.block is not None:  # a finished block (a plain call's among them)
            if op == _CALL:
                self.names[item.call_id] = item.name
            self.out.append(item.block)
        elif op == _RESULT:
            self._result(item)
        else:
            self.names[item.call_id] = item.name
            self.folded.add(item.call_id)
            if op == _BASH:
                found = self.results.get(item.call_id)
                memo = item.memo
                if memo is None or memo[0] is not found:
                    block = bash_block(item.call_id, item.command, item.index, found)
                    memo = item.memo = (found, "", block)
                self.out.append(memo[2])

    def _result(self, item: _Item) -> None:
        call_id = item.call_id
        found = self.results.get(call_id)
        if found is None or call_id in self.folded or item.name in SKIPPED_TOOLS:
            return
        shown = self.names.get(call_id, item.name or found.name or "tool")
        memo = item.memo
        if memo is None or memo[0] is not found or memo[1] != shown:
            block = result_block(item.index, call_id, shown, found.text, found.is_error)
            memo = item.memo = (found, shown, block)
        self.out.append(memo[2])


class EntryCache:
    """Per entry id: its scan facts and normalize items, valid while it is the same object at
    the same index; the extractors' per-block facts; a memo of redacted summary lines.
    Pruned to the live window when `observe` sees that a compaction folded the rest."""

    def __init__(self) -> None:
        self._entries: dict[str, EntryParts] = {}
        self._redacted: dict[str, str] = {}
        self.facts = Facts()
        """The extractors' per-block memo (context.py), pruned with the entries."""
        self.fresh: list[EntryParts] = []
        """The entries the last `parts` call worked out (not found in the cache)."""
        self.worked = 0
        """Entries worked out so far (warm-up and lazy): what a bench reports per entry."""

    def mostly_held(self, entries: Sequence[SessionEntry], indices: Sequence[int]) -> bool:
        """Are at least half the entries cached? Else a compaction is better off with the
        plain one-pass functions (and keeping nothing) than with filling the cache."""
        cache = self._entries
        if len(cache) * 2 < len(entries):
            return False  # cannot be: a cold compactor, or one that saw a small part
        held = 0
        for entry, index in zip(entries, indices, strict=True):
            parts = cache.get(entry.id)
            held += parts is not None and parts.entry is entry and parts.index == index
        return held * 2 >= len(entries) > 0

    def parts(self, entries: Sequence[SessionEntry], indices: Sequence[int]) -> list[EntryParts]:
        out: list[EntryParts] = []
        cache = self._entries
        fresh: list[EntryParts] = []
        self.fresh = fresh
        for entry, index in zip(entries, indices, strict=True):
            parts = cache.get(entry.id)
            if parts is None or parts.entry is not entry or parts.index != index:
                parts = cache[entry.id] = _parts(entry, index)
                fresh.append(parts)
            out.append(parts)
        self.worked += len(fresh)
        return out

    def blocks(self, parts: Sequence[EntryParts]) -> list[NormalizedBlock]:
        """What `normalize` gives for the parts' entries, in order."""
        results: dict[str, PairedResult] = {}
        for p in parts:
            if p.results:
                results.update(p.results)
        pairing = Pairing(results)
        for p in parts:
            pairing.entry(p)
        return pairing.out

    def redact(self, line: str) -> str:
        done = self._redacted.get(line)
        if done is None:
            done = self._redacted[line] = redact(line)
        return done

    def keep_only(self, entries: Sequence[SessionEntry]) -> None:
        """Forget every entry but these (the live window) once the cache holds many more."""
        if len(self._redacted) > _REDACTED_CAP:
            self._redacted = {}
        if len(self._entries) <= 2 * len(entries) + 256:
            return
        kept = {e.id for e in entries}
        self._entries = {k: v for k, v in self._entries.items() if k in kept}
        blocks: set[int] = set()
        for parts in self._entries.values():
            for item in parts.items:
                blocks.add(id(item.block))
                if item.memo is not None:
                    blocks.add(id(item.memo[2]))
        self.facts.keep_only(blocks)

    def stats(self) -> dict[str, int]:
        return {"entries": len(self._entries), "facts": len(self.facts), "worked": self.worked}
