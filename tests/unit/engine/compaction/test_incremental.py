"""Incremental compaction against full compaction of the same entries, per the merge rules.

An incremental compaction builds sections from the new entries only and merges them into the
previous summary: sticky goal, union (with a cap) for preferences, files, commits and
signatures, rolling turns and transcript, replaced outstanding context and progress. With the
split at a user turn and everything under the caps, the merge gives what one compaction of all
the entries gives — section by section, as the policy says — so work folded once never has to
be looked at again. Also: the single-pass scan and the plan memo answer like the plain
functions they replace.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import (
    DeterministicCompactor,
    SectionContext,
    build_sections,
    estimate_entry,
    format_summary,
    latest_plan,
    normalize,
    parse_summary,
)
from shard_core.engine.compaction.compactor import _PlanMemo  # pyright: ignore[reportPrivateUsage]
from shard_core.engine.compaction.cut import scan_window
from shard_core.engine.compaction.extractors.intent import MAX_PREFERENCES, SCOPE_PREFIX
from shard_core.engine.compaction.extractors.turns import MAX_TURNS
from shard_core.types import SessionEntry
from tests.fixtures.sessions.builders import SessionBuilder
from tests.unit.engine.compaction.test_determinism import OPS, PHRASE, SETTINGS, build

SPANS = st.lists(OPS, min_size=0, max_size=25)


def summary_of(
    branch: list[SessionEntry], lo: int, hi: int, previous: str | None, index: int
) -> tuple[str, dict[str, tuple[str, ...]]]:
    """The pure pipeline over branch[lo:hi] (no budget): the summary and the fresh sections."""
    blocks = normalize(branch[lo:hi], indices=range(lo, hi))
    plan = latest_plan(branch[:hi])
    ctx = SectionContext(
        code_index=None, previous_summary=previous, compaction_index=index, plan=plan
    )
    sections = build_sections(blocks, ctx)
    fresh = {s.title: s.lines for s in sections}
    return format_summary(sections, previous), fresh


@SETTINGS
@given(first=SPANS, ask=PHRASE.filter(str.strip), more=SPANS)  # a blank ask starts no turn
def test_incremental_compaction_merges_into_what_full_compaction_gives(
    first: list[tuple[Any, ...]], ask: str, more: list[tuple[Any, ...]]
) -> None:
    b = build([*first, ("user", ask), *more])
    split, end = len(build(first).entries), len(b.entries)  # the split: a user turn starts
    a, _ = summary_of(b.entries, 1, split, None, 0)
    inc, fresh = summary_of(b.entries, split, end, a, 1)
    full, _ = summary_of(b.entries, 1, end, None, 0)
    assert summary_of(b.entries, split, end, a, 1)[0] == inc  # deterministic
    before, got, want = parse_summary(a), parse_summary(inc), parse_summary(full)

    # sticky goal: the first goal stays; the latest change of scope wins
    first_goals, _ = _goals(before.sections)
    goals, scopes = _goals(got.sections)
    full_goals, full_scopes = _goals(want.sections)
    assert goals == (first_goals or full_goals)
    if first_goals == full_goals:
        assert scopes == full_scopes
    # union with a cap: files (statuses combined per path), commits and signatures per key
    for title in ("Files And Changes", "Commits"):
        assert got.sections.get(title, []) == want.sections.get(title, [])
    assert _keyed(got.sections.get("Type Catalog", [])) == _keyed(
        want.sections.get("Type Catalog", [])
    )
    preferences = want.sections.get("User Preferences", [])
    if len(preferences) < MAX_PREFERENCES:
        assert got.sections.get("User Preferences", []) == preferences
    # replaced: what the new entries say, nothing older
    for title in ("Outstanding Context", "Progress"):
        assert got.sections.get(title, []) == list(fresh.get(title, ()))
    # rolling: earlier turns continue where the previous summary stopped; the transcript
    # ends with the new entries' own
    turns = want.sections.get("Earlier Turns", [])
    if len(turns) <= MAX_TURNS and not any(t.startswith("(+") for t in turns):
        assert got.sections.get("Earlier Turns", []) == turns
    alone = parse_summary(summary_of(b.entries, split, end, None, 1)[0]).transcript
    assert got.transcript[len(got.transcript) - len(alone) :] == alone


def _goals(sections: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    lines = sections.get("Session Goal", [])
    return (
        [g for g in lines if not g.startswith(SCOPE_PREFIX)],
        [g for g in lines if g.startswith(SCOPE_PREFIX)],
    )


def _keyed(lines: list[str]) -> dict[str, str]:
    return {line.partition(": ")[0]: line for line in lines}


@SETTINGS
@given(first=SPANS, ask=PHRASE, more=SPANS)
def test_the_compactor_folds_only_entries_since_the_last_compaction(
    first: list[tuple[Any, ...]], ask: str, more: list[tuple[Any, ...]]
) -> None:
    log = ("build output line\n" * 400, 0)  # enough text that folding it pays for a summary
    b = build(
        [*first, ("bash", "make", *log), ("user", ask or "next"), *more, ("bash", "make", *log)]
    )
    compactor = DeterministicCompactor(keep_recent_tokens=0, summary_tokens=50_000)
    one = compactor.compact(_input(b, 0))
    assert one is not None
    b.compaction(one)
    b.user(ask or "and then")
    b.bash("make", *log)
    two = compactor.compact(_input(b, 1))
    assert two is not None
    ids = [e.id for e in b.entries]
    lo, hi = ids.index(two.range_first_id), ids.index(two.range_last_id) + 1
    assert lo > ids.index(one.range_last_id)  # nothing folded twice
    summary, _ = summary_of(b.entries, lo, hi, one.summary, 1)
    assert two.summary == summary


def _input(b: SessionBuilder, index: int) -> CompactionInput:
    tokens = sum(estimate_entry(e) for e in b.entries) + 500
    return CompactionInput(b.entries, tokens, 1_000_000, 900_000, "threshold", index)


@SETTINGS
@given(ops=st.lists(OPS, max_size=40))
def test_the_single_pass_scan_counts_tokens_like_estimate_entry(
    ops: list[tuple[Any, ...]],
) -> None:
    b = build(ops)
    positions = [p for p, e in enumerate(b.entries) if e.type in ("message", "tool_result")]
    scan = scan_window(b.entries, positions)
    assert scan.tokens == [estimate_entry(b.entries[p]) for p in positions]
    assert len(scan.safe) == len(scan.user) == len(positions)


def test_the_plan_memo_answers_like_latest_plan_on_any_branch() -> None:
    b = SessionBuilder()
    b.user("build it")
    first = b.plan([("step one", False)])
    b.bash("pytest -q", "1 passed", 0)
    entries = list(b.entries)
    memo = _PlanMemo()
    assert memo.latest(entries) == first.details
    b.plan([("step one", True), ("step two", False)])
    longer = list(b.entries)
    assert memo.latest(longer) == latest_plan(longer) == longer[-1].details
    assert memo.latest(entries) == first.details  # a shorter branch: scanned again
    other = [*entries[:2], *SessionBuilder().entries]  # another branch, same length
    other[-1:] = [entries[-1]]
    assert memo.latest(other) == latest_plan(other)
    assert memo.latest([]) is None
