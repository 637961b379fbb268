"""The compactor's per-entry cache: a warm cache (entries observed as they arrive, as the turn
loop does) and a cold one (a restart, a session file) give the same bytes; the cached pairing
gives what `normalize` gives; the scan from cached rows is `scan_window`."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shard_core.contracts.compactor import CompactionInput, ObservingCompactor
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries, normalize
from shard_core.engine.compaction import compactor as compactor_module
from shard_core.engine.compaction.cache import EntryCache
from shard_core.engine.compaction.cut import scan_rows, scan_window
from shard_core.types import (
    AssistantMessage,
    CompactionDetails,
    MessageDetails,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ToolResult,
    ToolResultBlock,
    UserMessage,
)
from tests.fixtures.sessions.builders import SessionBuilder
from tests.fixtures.sessions.realistic import bugfix_session, exploration_session
from tests.unit.engine.compaction.test_determinism import OPS, SETTINGS, build

CONTEXT = ("message", "tool_result")


def _context(entries: list[SessionEntry]) -> tuple[list[SessionEntry], list[int]]:
    positions = [p for p, e in enumerate(entries) if e.type in CONTEXT]
    return [entries[p] for p in positions], positions


@SETTINGS
@given(ops=st.lists(OPS, max_size=40), split=st.integers(0, 40))
def test_cached_pairing_gives_what_normalize_gives(ops: list[tuple[Any, ...]], split: int) -> None:
    entries, positions = _context(build(ops).entries)
    cache = EntryCache()
    cache.parts(entries[:split], positions[:split])  # some entries seen before, some not
    parts = cache.parts(entries, positions)
    assert cache.blocks(parts) == normalize(entries, indices=positions)
    assert cache.blocks(parts) == normalize(entries, indices=positions)  # memo hits: the same
    assert scan_rows(positions, [p.scan for p in parts]) == scan_window(
        build(ops).entries, positions
    )


def test_pairing_edge_cases_match_normalize() -> None:
    b = _edge_cases()
    entries, positions = _context(b.entries)
    cache = EntryCache()
    for end in range(len(entries) + 1):  # every prefix, the cache filling as it goes
        parts = cache.parts(entries[:end], positions[:end])
        assert cache.blocks(parts) == normalize(entries[:end], indices=positions[:end])


def test_pairing_edge_cases_compact_alike_warm_or_cold() -> None:
    """A call answered twice, a result inline after its call's result, a call never
    answered: the observed span gives up on them and the cache path takes over."""
    for keep in (0, 10, 40, 400):
        b = _edge_cases()
        b.user("then a second turn that is long enough to fold " * 20)
        b.bash("pytest -q", "1 passed", 0)
        _warm_and_cold(b, keep)


def _edge_cases() -> SessionBuilder:
    b = SessionBuilder()
    b.user("go")
    recall = b.new_call("recall", {"query": "x"})
    bash = b.new_call("bash", {"command": "ls"})
    lost = b.new_call("bash", {"command": "sleep 9"})  # never answered
    read = b.new_call("read", {"path": "a.py"})
    b.say("looking", [recall, bash, lost, read])
    b.result(recall, ToolResult(content=[TextBlock(text="old")]))
    b.result(bash, ToolResult(content=[TextBlock(text="a.py\nexit code 0")]))
    b.result(read, ToolResult(content=[TextBlock(text="def f(): ...")]))
    b.result(read, ToolResult(content=[TextBlock(text="again: the same id twice")]))
    inline = ToolResultBlock(tool_call_id=read.id, content=[TextBlock(text="inline")])
    b.entries.append(
        MessageEntry(
            id="inline", ts=0.0, details=MessageDetails(message=UserMessage(content=[inline]))
        )
    )
    b.entries.append(
        MessageEntry(
            id="tail",
            ts=0.0,
            details=MessageDetails(message=AssistantMessage(content=[TextBlock(text="  ")])),
        )
    )
    return b


def _observed(b: SessionBuilder, compactor: DeterministicCompactor) -> None:
    """Observe the branch at every turn end, the way AgentSession.after_turn does."""
    for end in range(1, len(b.entries) + 1):
        following = b.entries[end] if end < len(b.entries) else None
        if following is None or (
            following.type == "message" and following.details.message.role == "user"
        ):
            compactor.observe(b.entries[:end])


def _compact(
    compactor: DeterministicCompactor, b: SessionBuilder, index: int, keep: int
) -> CompactionDetails | None:
    tokens = estimate_entries(b.entries) + 500
    return compactor.compact(
        CompactionInput(b.entries, tokens, 100_000, keep * 3, "threshold", index)
    )


def _warm_and_cold(b: SessionBuilder, keep: int, rounds: int = 2) -> DeterministicCompactor:
    warm = DeterministicCompactor(keep_recent_tokens=keep, summary_tokens=2_000)
    for index in range(rounds):
        _observed(b, warm)
        cold = DeterministicCompactor(keep_recent_tokens=keep, summary_tokens=2_000)
        got, want = _compact(warm, b, index, keep), _compact(cold, b, index, keep)
        assert got == want  # the same bytes, whichever path made them
        if got is None:
            break
        b.compaction(got)
        b.user(f"round {index + 2}: go on")
        b.bash("pytest -q", "3 passed", 0)
    return warm


@SETTINGS
@given(ops=st.lists(OPS, min_size=1, max_size=40), keep=st.integers(0, 3_000))
def test_a_warm_cache_and_a_cold_cache_give_the_same_bytes(
    ops: list[tuple[Any, ...]], keep: int
) -> None:
    _warm_and_cold(build(ops), keep)


def test_warm_and_cold_agree_on_the_realistic_sessions() -> None:
    for session in (bugfix_session, exploration_session):
        warm = _warm_and_cold(session(), 300, rounds=3)
        assert warm.stats()["worked"] > 0  # the warm path did run


def test_the_deterministic_compactor_is_an_observing_compactor() -> None:
    assert isinstance(DeterministicCompactor(), ObservingCompactor)


def test_an_observed_branch_compacts_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    b = bugfix_session()
    warm = DeterministicCompactor(keep_recent_tokens=300, summary_tokens=2_000)
    _observed(b, warm)
    want = _compact(DeterministicCompactor(keep_recent_tokens=300, summary_tokens=2_000), b, 0, 300)

    def cold(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("the warm path must not work entries out again")

    monkeypatch.setattr(compactor_module, "walk_window", cold)
    monkeypatch.setattr(compactor_module, "scan_rows", cold)  # the span did the scan too
    assert _compact(warm, b, 0, 300) == want is not None
