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
from shard_core.engine.compaction.cut import live_window
from shard_core.types import MessageEntry, SessionEntry
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
