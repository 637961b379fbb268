"""DeterministicCompactor: when, where it cuts, budgets, and convergence (no compaction loops)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from shard_core.contracts.compactor import CompactionInput, Compactor
from shard_core.engine.compaction import DeterministicCompactor, estimate_text, live_context
from shard_core.engine.compaction.tokens import ENTRY_OVERHEAD_TOKENS, estimate_entries
from shard_core.types import (
    CompactionDetails,
    CompactionEntry,
    MessageEntry,
    SessionEntry,
)
from tests.fixtures.sessions.builders import SessionBuilder
from tests.fixtures.sessions.invariants import assert_safe_cut

WINDOW = 50_000
TARGET = 25_000
OVERHEAD = 1_500


def measure(entries: Sequence[SessionEntry]) -> int:
    """What the loop would measure: system overhead + summary + verbatim entries."""
    summary, kept = live_context(entries)
    with_summary = estimate_text(summary) + ENTRY_OVERHEAD_TOKENS if summary else 0
    return OVERHEAD + with_summary + estimate_entries(kept)


def run_loop(b: SessionBuilder, compactor: DeterministicCompactor) -> list[CompactionDetails]:
    """Compact the way the turn loop does, until the context is under the threshold."""
    done: list[CompactionDetails] = []
    for _ in range(5):
        tokens = measure(b.entries)
        if not compactor.should_compact(tokens, WINDOW):
            break
        index = sum(isinstance(e, CompactionEntry) for e in b.entries)
        data = CompactionInput(b.entries, tokens, WINDOW, TARGET, "threshold", index)
        details = compactor.compact(data)
        if details is None:
            break
        b.compaction(details)
        done.append(details)
    return done


def assert_converged(b: SessionBuilder, compactor: DeterministicCompactor) -> CompactionDetails:
    done = run_loop(b, compactor)
    assert len(done) == 1
    details = done[0]
    assert details.tokens_after == measure(b.entries)
    assert details.tokens_after <= TARGET
    assert not compactor.should_compact(details.tokens_after, WINDOW)
    again = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "threshold", 1)
    assert compactor.compact(again) is None
    assert_safe_cut(b.entries, details.first_kept_entry_id)
    return details


def compactor() -> DeterministicCompactor:
    return DeterministicCompactor(keep_recent_tokens=8_000, summary_tokens=4_000)


def test_it_satisfies_the_compactor_contract_and_threshold() -> None:
    c: Compactor = compactor()
    assert c.name == "deterministic"
    assert not c.should_compact(39_999, WINDOW)
    assert c.should_compact(40_000, WINDOW)
    assert not c.should_compact(10, 0)
    with pytest.raises(ValueError, match="threshold"):
        DeterministicCompactor(threshold=1.5)


def turns(b: SessionBuilder, count: int, output_chars: int = 2_000) -> None:
    for i in range(count):
        b.user(f"Step {i}: look at module m{i}.py and tidy it up")
        b.read(f"src/m{i}.py", f"def f{i}(x):\n" + "    x += 1\n" * (output_chars // 11))
        b.edit(f"src/m{i}.py", "x += 1", "x += 2")
        b.say(f"Tidied m{i}.py.")


def test_a_2mb_tool_result_is_folded_and_shown_cut_with_a_breadcrumb() -> None:
    b = SessionBuilder()
    turns(b, 5)
    b.user("Show me the build log")
    index = b.bash("cat build.log", "BEGIN\n" + "log line\n" * 230_000 + "END OF LOG", 0)
    details = assert_converged(b, compactor())
    assert details.first_kept_entry_id is None
    assert f"recall: expand=[{index}]" in details.summary
    assert "BEGIN" in details.summary
    assert "END OF LOG" in details.summary
    assert details.tokens_before > 500_000


def test_a_tail_bigger_than_the_budget_is_recut_at_a_safe_boundary() -> None:
    b = SessionBuilder()
    turns(b, 3)
    b.user("Read every module")
    for i in range(40):
        b.read(f"src/big{i}.py", "y = 2\n" * 700)
    assert_converged(b, compactor())
    kept = live_context(b.entries)[1]
    assert not any(isinstance(e, MessageEntry) and e.details.message.role == "user" for e in kept)
    assert estimate_entries(kept) <= 8_000


def test_a_one_prompt_session_without_turn_boundaries_converges() -> None:
    b = SessionBuilder()
    b.user("Migrate the whole code base to the new logging API")
    for i in range(120):
        b.bash(
            f"sed -i s/log/logger/ src/f{i}.py && python -m py_compile src/f{i}.py", "z" * 1200, 0
        )
    details = assert_converged(b, compactor())
    assert details.first_kept_entry_id is not None
    assert "Migrate the whole code base" in details.summary


def test_nothing_to_fold_returns_none() -> None:
    b = SessionBuilder()
    turns(b, 2, output_chars=200)
    data = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "threshold", 0)
    assert compactor().compact(data) is None


def test_manual_compaction_keeps_the_last_turn_and_then_stops() -> None:
    b = SessionBuilder()
    turns(b, 4, output_chars=200)
    c = compactor()
    data = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "manual", 0)
    details = c.compact(data)
    assert details is not None
    assert details.reason == "manual"
    last_user = [e for e in b.entries if isinstance(e, MessageEntry)][-4]
    assert details.first_kept_entry_id == last_user.id
    b.compaction(details)
    data = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "manual", 1)
    assert c.compact(data) is None


def test_manual_compaction_that_would_not_shrink_is_not_made_unless_forced() -> None:
    b = SessionBuilder()
    b.user("Rename the config flag")
    b.say("Done.")
    b.user("Thanks")
    b.say("Anytime.")
    for reason in ("manual", "threshold"):
        data = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, reason, 0)
        assert compactor().compact(data) is None  # a summary bigger than what it folds
    forced = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "manual", 0, True)
    details = compactor().compact(forced)
    assert details is not None
    assert details.tokens_after >= details.tokens_before
    assert details.first_kept_entry_id == b.entries[3].id  # the last turn stays
    assert "Rename the config flag" in details.summary


def test_manual_compaction_of_a_lone_first_turn_folds_it_and_then_stops() -> None:
    b = SessionBuilder()
    turns(b, 1, output_chars=20_000)
    c = compactor()
    details = c.compact(CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "manual", 0))
    assert details is not None
    assert details.first_kept_entry_id is None
    assert "Step 0: look at module m0.py" in details.summary
    b.compaction(details)
    b.user("And now m1.py")
    b.say("Tidied m1.py.")
    again = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "manual", 1)
    assert c.compact(again) is None  # a lone turn after a summary stays


def test_repeated_compactions_merge_and_keep_plan_checkpoints_in_the_log() -> None:
    b = SessionBuilder()
    b.plan([("read modules", False), ("tidy modules", False)])
    c = compactor()
    summaries: list[str] = []
    for round_ in range(3):
        turns(b, 45)
        b.plan([("read modules", True), ("tidy modules", round_ == 2)])
        done = run_loop(b, c)
        assert len(done) == 1
        summaries.append(done[0].summary)
    assert [d.details.index for d in b.entries if isinstance(d, CompactionEntry)] == [0, 1, 2]
    assert "Step 0: look at module m0.py" in summaries[-1]  # the goal is sticky
    assert "- plan: 2/2 steps done" in summaries[-1]
    assert sum(1 for e in b.entries if e.__class__.__name__ == "CheckpointEntry") == 4


def test_live_context_is_the_latest_summary_and_what_follows_first_kept() -> None:
    b = SessionBuilder()
    turns(b, 1, output_chars=100)
    assert live_context(b.entries) == (None, b.entries[1:])
    first_kept = b.entries[5]
    b.compaction(
        CompactionDetails(
            summary="S",
            first_kept_entry_id=first_kept.id,
            range_first_id=b.entries[1].id,
            range_last_id=b.entries[4].id,
            tokens_before=10,
            tokens_after=5,
            compactor="x",
            index=0,
        )
    )
    b.user("next")
    assert live_context(b.entries) == ("S", [b.entries[5], b.entries[6], b.entries[8]])


def test_a_turn_across_two_compactions_keeps_its_progress() -> None:
    """The second compaction folds only tool traffic of a turn whose prompt the first folded:
    Progress still says what is in progress and what the last test run was."""
    b = SessionBuilder()
    b.user("Make the flaky login test pass reliably")
    b.bash("pytest -q tests/test_login.py", "1 passed\nexit code 0", 0)
    c = compactor()
    for part in range(2):
        for i in range(12):
            b.read(f"src/part{part}_{i}.py", f"def g{i}(y):\n" + "    y -= 1\n" * 180)
        data = CompactionInput(b.entries, measure(b.entries), WINDOW, TARGET, "overflow", part)
        details = c.compact(data)
        assert details is not None
        ids = [e.id for e in b.entries]
        assert ids.index(details.first_kept_entry_id or "") > 3  # the prompt and test run: folded
        b.compaction(details)
        progress = details.summary.split("## Progress\n", 1)[1].split("\n\n", 1)[0]
        assert "- in progress: Make the flaky login test pass reliably" in progress, part
        assert "- last test run: pytest -q tests/test_login.py → passed" in progress, part
