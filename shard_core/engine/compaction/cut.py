"""Where a compaction cuts: the live window of a branch and the safe boundary to keep from.

A boundary is safe when the kept tail would start at a message that is not a tool result and
no tool call before it has its result after it — a call and its result are never separated.
Tool calls without any result (a crash) do not block boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from shard_core.engine.compaction.tokens import (
    CHARS_PER_TOKEN,
    CONTEXT_TYPES,
    ENTRY_OVERHEAD_TOKENS,
    IMAGE_TOKENS,
    TYPE_OF,
    entry_type,
    estimate_entry,
    json_chars,
    result_chars,
)
from shard_core.types import (
    CompactionEntry,
    MessageEntry,
    SessionEntry,
    ToolResultEntry,
)

MARKER_TYPES = frozenset({"compaction", "session"})
"""Entry types that mark a branch (header, earlier compactions) and are no conversation."""


@dataclass(frozen=True)
class Window:
    """The latest compaction on a branch and what is still verbatim after it."""

    previous: CompactionEntry | None
    start: int
    """Branch position where the verbatim part begins (the previous first kept entry)."""
    positions: list[int]
    """Branch positions of the context entries (messages, tool results) from `start` on."""
    others: list[int] = field(default_factory=list[int])
    """Branch positions of the other entries from `start` on but the compaction (checkpoints,
    permissions, the header), so a search for the latest plan need not read every entry."""


def live_window(branch: Sequence[SessionEntry]) -> Window:
    """One walk back from the leaf to the latest compaction (or the root)."""
    previous: CompactionEntry | None = None
    start = at = 0
    after: list[int] = []  # context positions after the compaction, newest first
    others: list[int] = []
    type_of = TYPE_OF.get
    for i, cls in zip(range(len(branch) - 1, -1, -1), map(type, reversed(branch)), strict=True):
        if cls is MessageEntry or cls is ToolResultEntry:  # most entries: no read of the entry
            after.append(i)
            continue
        entry = branch[i]
        if (type_of(cls) or entry.type) in CONTEXT_TYPES:  # a subclass
            after.append(i)
        elif isinstance(entry, CompactionEntry):
            previous, start = entry, i + 1
            at = start
            first = entry.details.first_kept_entry_id
            for j in range(i - 1, -1, -1):  # the first kept entry is usually just before it
                if branch[j].id == first:
                    start = j
                    break
            break
        else:
            others.append(i)
    after.reverse()
    others.reverse()
    if start == at:
        return Window(previous, start, after, others)
    kinds = [(p, entry_type(branch[p])) for p in range(start, at - 1)]  # kept, before it
    before = [p for p, kind in kinds if kind in CONTEXT_TYPES]
    others_before = [p for p, kind in kinds if kind not in CONTEXT_TYPES]
    return Window(previous, start, before + after, others_before + others)


def live_context(branch: Sequence[SessionEntry]) -> tuple[str | None, list[SessionEntry]]:
    """Live context = (latest compaction summary or None, the entries after its first kept
    entry on the branch). Headers and compaction entries are left out; checkpoints and
    permission entries stay (they are not messages, the caller picks what it needs)."""
    window = live_window(branch)
    summary = window.previous.details.summary if window.previous is not None else None
    kept: list[SessionEntry] = []
    type_of = TYPE_OF.get
    for entry in branch[window.start :]:
        if (type_of(type(entry)) or entry.type) not in MARKER_TYPES:
            kept.append(entry)
    return summary, kept


@dataclass(frozen=True)
class Scan:
    """Per live position: its token estimate, may the kept tail start there (safe), and does a
    user turn start there."""

    tokens: list[int]
    safe: list[bool]
    user: list[bool]


_Row = tuple[bool, bool, list[str]] | None
"""(carries a tool result, is a user turn start, ids of the calls it makes); None: no message."""


class EntryScan(NamedTuple):
    """What the scan needs of one entry, independent of where it sits in the branch."""

    tokens: int
    row: _Row
    results: tuple[str, ...]
    """Ids of the calls whose results the entry carries."""


def scan_entry(entry: SessionEntry) -> EntryScan:
    """Token estimate and boundary facts of one context entry, in one walk over its blocks."""
    if entry.type != "message":
        if entry.type == "tool_result":
            return EntryScan(estimate_entry(entry), None, (entry.details.tool_call_id,))
        return EntryScan(estimate_entry(entry), None, ())
    message = entry.details.message
    has_text = False
    calls: list[str] = []
    results: list[str] = []
    chars = 0  # what estimate_entry counts, in the same walk over the blocks
    for block in message.content:
        if block.type == "text":
            has_text = True
            chars += len(block.text)
        elif block.type == "tool_result":
            results.append(block.tool_call_id)
            chars += result_chars(block.content)
        elif block.type == "tool_call":
            calls.append(block.id)
            chars += len(block.name) + json_chars(block.input)
        elif block.type == "thinking":
            chars += len(block.thinking)
        else:
            chars += IMAGE_TOKENS * CHARS_PER_TOKEN
    tokens = -(-chars // CHARS_PER_TOKEN) + ENTRY_OVERHEAD_TOKENS
    row = (bool(results), has_text and message.role == "user", calls)
    return EntryScan(tokens, row, tuple(results))


def scan_window(branch: Sequence[SessionEntry], positions: Sequence[int]) -> Scan:
    """Token estimates and boundaries: a tail may start at a message that carries no tool
    results, when no call before it has its result after it."""
    return scan_rows(positions, [scan_entry(branch[p]) for p in positions])


def scan_rows(positions: Sequence[int], scans: Sequence[EntryScan]) -> Scan:
    """The Scan from per-entry facts (fresh or cached): one pass over plain rows."""
    results: dict[str, int] = {}  # call id → position of its result
    for p, scanned in zip(positions, scans, strict=True):
        for call in scanned.results:
            results[call] = p
    tokens = [s.tokens for s in scans]
    safe: list[bool] = []
    user: list[bool] = []
    open_until = -1  # the latest result position owed by a call seen so far
    for p, scanned in zip(positions, scans, strict=True):
        row = scanned.row
        if row is None:
            safe.append(False)
            user.append(False)
            continue
        has_result, starts_turn, calls = row
        safe.append(open_until < p and not has_result)
        user.append(starts_turn)
        for call in calls:
            open_until = max(open_until, results.get(call, -1))
    return Scan(tokens, safe, user)


@dataclass(frozen=True)
class Cut:
    keep_from: int
    """Index into the window's positions of the first kept entry (len(positions): keep none)."""
    kept_tokens: int


def choose_cut(
    tokens: Sequence[int], safe: Sequence[bool], user: Sequence[bool], budget: int
) -> Cut:
    """The earliest safe boundary whose tail fits `budget` — or a user-turn start that still
    keeps at least half the budget, so turns stay whole when that costs little."""
    suffix = 0
    earliest: tuple[int, int] | None = None
    earliest_user: tuple[int, int] | None = None
    for k in range(len(tokens) - 1, -1, -1):
        suffix += tokens[k]
        if suffix > budget:
            break
        if safe[k]:
            earliest = (k, suffix)
            if user[k]:
                earliest_user = (k, suffix)
    if earliest_user is not None and earliest_user[1] * 2 >= budget:
        return Cut(*earliest_user)
    if earliest is not None:
        return Cut(*earliest)
    return Cut(len(tokens), 0)


def last_turn_tokens(
    tokens: Sequence[int], safe: Sequence[bool], user: Sequence[bool]
) -> int | None:
    """Tokens from the last safe user-turn start to the end (what a manual compaction keeps)."""
    suffix = 0
    for k in range(len(tokens) - 1, -1, -1):
        suffix += tokens[k]
        if safe[k] and user[k]:
            return suffix
    return None
