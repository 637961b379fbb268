"""Properties: same entries → same summary bytes (also after a JSONL save/load round trip); every
cut is safe; compacting the result again folds nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries
from shard_core.types import CompactionDetails
from tests.fixtures.sessions.builders import SessionBuilder, load_entries, save_entries
from tests.fixtures.sessions.invariants import assert_safe_cut

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)
WORDS = st.sampled_from(
    ["fix", "always use ruff", "never push", "pytest -q", "src/a.py", "git log", "Error:", "ok"]
)
PHRASE = st.lists(st.one_of(WORDS, TEXT), min_size=1, max_size=4).map(" ".join)
PATH = st.sampled_from(["src/a.py", "src/b.ts", "lib/c.go", "d.rs", "README.md"])

OPS = st.one_of(
    st.tuples(st.just("user"), PHRASE),
    st.tuples(st.just("say"), PHRASE),
    st.tuples(st.just("bash"), PHRASE, PHRASE, st.sampled_from([0, 1, 2, 124])),
    st.tuples(st.just("read"), PATH, PHRASE),
    st.tuples(st.just("edit"), PATH, st.booleans()),
    st.tuples(st.just("write"), PATH, st.booleans()),
    st.tuples(st.just("plan"), st.lists(st.tuples(PHRASE, st.booleans()), max_size=4)),
)


def build(ops: list[tuple[Any, ...]]) -> SessionBuilder:
    b = SessionBuilder()
    for op in ops:
        kind, *args = op
        if kind == "user":
            b.user(args[0] or "hello")
        elif kind == "say":
            b.say(args[0] or "done")
        elif kind == "bash":
            b.bash(args[0] or "true", args[1], args[2])
        elif kind == "read":
            b.read(args[0], "def f(x):\n    return x\n" + args[1])
        elif kind == "edit":
            b.edit(args[0], "a", "b", error=None if args[1] else "old_string not found")
        elif kind == "write":
            b.write(args[0], "content", new=args[1])
        else:
            b.plan(args[0])
    return b


def compact(b: SessionBuilder, keep: int, target: int) -> CompactionDetails | None:
    tokens = estimate_entries(b.entries) + 500
    data = CompactionInput(b.entries, tokens, 100_000, target, "threshold", 0)
    return DeterministicCompactor(keep_recent_tokens=keep, summary_tokens=2_000).compact(data)


SESSIONS = st.lists(OPS, min_size=1, max_size=40)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(ops=SESSIONS, keep=st.integers(0, 3_000))
def test_same_entries_give_the_same_bytes_also_after_save_and_load(
    ops: list[tuple[Any, ...]], keep: int
) -> None:
    first = compact(build(ops), keep, 6_000)
    second = compact(build(ops), keep, 6_000)
    assert first == second
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        save_entries(build(ops).entries, path)
        reloaded = SessionBuilder()
        reloaded.entries = load_entries(path)
    assert compact(reloaded, keep, 6_000) == first


@SETTINGS
@given(ops=SESSIONS, keep=st.integers(0, 3_000), target=st.integers(1_000, 20_000))
def test_every_cut_is_safe_and_a_second_compaction_folds_nothing(
    ops: list[tuple[Any, ...]], keep: int, target: int
) -> None:
    b = build(ops)
    details = compact(b, keep, target)
    if details is None:
        return
    assert_safe_cut(b.entries, details.first_kept_entry_id)
    assert len(details.summary) <= min(2_000, max(0, target - 500 - 4) // 2) * 4 or (
        details.summary.endswith("use recall]\n")
    )
    b.compaction(details)
    again = CompactionInput(b.entries, details.tokens_after, 100_000, target, "threshold", 1)
    compactor = DeterministicCompactor(keep_recent_tokens=keep, summary_tokens=2_000)
    assert compactor.compact(again) is None
