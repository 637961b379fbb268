"""Where a compaction cuts: the live window of a branch and the safe boundary to keep from.

A boundary is safe when the kept tail would start at a message that is not a tool result and
no tool call before it has its result after it — a call and its result are never separated.
Tool calls without any result (a crash) do not block boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shard_core.engine.compaction.tokens import CONTEXT_TYPES
from shard_core.types import (
    CompactionEntry,
    SessionEntry,
    SessionHeaderEntry,
)


@dataclass(frozen=True)
class Window:
    """The latest compaction on a branch and what is still verbatim after it."""

    previous: CompactionEntry | None
    start: int
    """Branch position where the verbatim part begins (the previous first kept entry)."""
    positions: list[int]
    """Branch positions of the context entries (messages, tool results) from `start` on."""


def live_window(branch: Sequence[SessionEntry]) -> Window:
    previous: CompactionEntry | None = None
    start = 0
    for i in range(len(branch) - 1, -1, -1):
        entry = branch[i]
        if entry.type == "compaction":
            previous, start = entry, i + 1
            first = entry.details.first_kept_entry_id
            for j in range(i - 1, -1, -1):  # the first kept entry is usually just before it
                if branch[j].id == first:
                    start = j
                    break
            break
    positions = [p for p in range(start, len(branch)) if branch[p].type in CONTEXT_TYPES]
    return Window(previous, start, positions)


def live_context(branch: Sequence[SessionEntry]) -> tuple[str | None, list[SessionEntry]]:
    """Live context = (latest compaction summary or None, the entries after its first kept
    entry on the branch). Headers and compaction entries are left out; checkpoints and
    permission entries stay (they are not messages, the caller picks what it needs)."""
    window = live_window(branch)
    summary = window.previous.details.summary if window.previous is not None else None
    kept: list[SessionEntry] = []
    for entry in branch[window.start :]:
        if not isinstance(entry, CompactionEntry | SessionHeaderEntry):
            kept.append(entry)
    return summary, kept


def _result_positions(branch: Sequence[SessionEntry], positions: Sequence[int]) -> dict[str, int]:
    found: dict[str, int] = {}
    for p in positions:
        entry = branch[p]
        if entry.type == "tool_result":
            found[entry.details.tool_call_id] = p
        elif entry.type == "message":
            for block in entry.details.message.content:
                if block.type == "tool_result":
                    found[block.tool_call_id] = p
    return found


def boundaries(
    branch: Sequence[SessionEntry], positions: Sequence[int]
) -> tuple[list[bool], list[bool]]:
    """For each live position: may the kept tail start there (safe), and does a user turn
    start there? A tail may start at a message that carries no tool results, when no call
    before it has its result after it."""
    results = _result_positions(branch, positions)
    safe: list[bool] = []
    user: list[bool] = []
    open_until = -1  # the latest result position owed by a call seen so far
    for p in positions:
        entry = branch[p]
        if entry.type != "message":
            safe.append(False)
            user.append(False)
            continue
        content = entry.details.message.content
        kinds = {b.type for b in content}
        safe.append(open_until < p and "tool_result" not in kinds)
        user.append(entry.details.message.role == "user" and "text" in kinds)
        if "tool_call" in kinds:
            for block in content:
                if block.type == "tool_call" and block.id in results:
                    open_until = max(open_until, results[block.id])
    return safe, user


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
