"""The live window and the latest plan, found without reading every entry, are what reading
every entry finds: from the observed span (a branch that continues it), and from the window's
other entries (a branch not seen before)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries, latest_plan
from shard_core.engine.compaction.compactor import _PlanMemo  # pyright: ignore[reportPrivateUsage]
from shard_core.engine.compaction.cut import Window, live_window
from shard_core.types import CompactionDetails, CompactionEntry, MessageEntry, SessionEntry
from tests.unit.engine.compaction.test_determinism import OPS, SETTINGS, build


def _turn_ends(entries: list[SessionEntry]) -> list[int]:
    """Where the turn loop observes: before each user message, and at the end."""
    return [
        end
        for end in range(1, len(entries) + 1)
        if end == len(entries)
        or (
            isinstance(following := entries[end], MessageEntry)
            and following.details.message.role == "user"
        )
    ]


@SETTINGS
@given(ops=st.lists(OPS, min_size=1, max_size=30), more=st.lists(OPS, max_size=15))
def test_the_window_from_the_span_is_the_live_window(
    ops: list[tuple[Any, ...]], more: list[tuple[Any, ...]]
) -> None:
    b = build(ops)
    compactor = DeterministicCompactor(keep_recent_tokens=200, summary_tokens=2_000)
    for end in _turn_ends(b.entries):
        compactor.observe(b.entries[:end])
        for cut in range(end, len(b.entries) + 1):  # mid-turn too: entries not observed yet
            branch = b.entries[:cut]
            assert compactor._window(branch) == live_window(branch)  # pyright: ignore[reportPrivateUsage]
    tokens = estimate_entries(b.entries) + 500
    details = compactor.compact(CompactionInput(b.entries, tokens, 100_000, 900, "manual", 0))
    if details is None:
        return
    b.compaction(details)
    for op in more:
        build_more = build([op]).entries[1:]  # without its header
        b.entries += build_more
    for end in _turn_ends(b.entries):
        compactor.observe(b.entries[:end])
        branch = b.entries[:end]
        assert compactor._window(branch) == live_window(branch)  # pyright: ignore[reportPrivateUsage]


@SETTINGS
@given(ops=st.lists(OPS, max_size=40), cut=st.integers(0, 40))
def test_the_latest_plan_from_the_window_is_the_latest_plan(
    ops: list[tuple[Any, ...]], cut: int
) -> None:
    b = build(ops)
    if len(b.entries) > 3:
        tokens = estimate_entries(b.entries) + 500
        details = DeterministicCompactor(keep_recent_tokens=100).compact(
            CompactionInput(b.entries, tokens, 100_000, 600, "manual", 0)
        )
        if details is not None:
            b.compaction(details)
            b.entries += build(ops[cut:]).entries[1:]
    branch = b.entries
    assert _PlanMemo().latest(branch, live_window(branch)) == latest_plan(branch)


def _plain_live_window(branch: list[SessionEntry]) -> Window:
    """The definition: back from the leaf to the latest compaction, then from its first kept
    entry (when it is before it) on: context positions, and the others but that compaction."""
    latest = next(
        (i for i in range(len(branch) - 1, -1, -1) if isinstance(branch[i], CompactionEntry)),
        None,
    )
    if latest is None:
        previous, start, skip = None, 0, -1
    else:
        previous = branch[latest]
        assert isinstance(previous, CompactionEntry)
        kept = previous.details.first_kept_entry_id
        before = [j for j in range(latest) if branch[j].id == kept]
        start, skip = (before[-1] if before else latest + 1), latest
    context = ("message", "tool_result")
    span = range(start, len(branch))
    return Window(
        previous,
        start,
        [p for p in span if branch[p].type in context],
        [p for p in span if branch[p].type not in context and p != skip],
    )


@SETTINGS
@given(
    ops=st.lists(OPS, max_size=30),
    marks=st.lists(st.tuples(st.integers(0, 60), st.integers(-1, 60)), max_size=3),
)
def test_the_live_window_is_its_definition(
    ops: list[tuple[Any, ...]], marks: list[tuple[int, int]]
) -> None:
    """Compactions anywhere, whose first kept entry is before them, after them, or nowhere."""
    b = build(ops)
    for at, kept in marks:
        at = min(at, len(b.entries))
        ids = [e.id for e in b.entries]
        details = CompactionDetails(
            summary="s", first_kept_entry_id=ids[kept] if 0 <= kept < len(ids) else None,
            range_first_id=ids[0], range_last_id=ids[-1], tokens_before=1, tokens_after=1,
            compactor="deterministic", index=0,
        )  # fmt: skip
        b.compaction(details)
        b.entries.insert(at, b.entries.pop())
    for end in range(len(b.entries) + 1):
        assert live_window(b.entries[:end]) == _plain_live_window(b.entries[:end])
