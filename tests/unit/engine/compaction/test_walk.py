"""walk_window: the cold compaction's single pass gives what `scan_window` and `normalize` give —
the scan exactly, the blocks for every safe cut (and for all entries) — and indexes them like
`index_blocks`. Sessions here carry what the usual ones do not: calls answered twice or never,
results before their calls, inline results, several calls in one message, thinking, images."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries, normalize
from shard_core.engine.compaction.context import BlockIndex, index_blocks
from shard_core.engine.compaction.cut import live_window, scan_window
from shard_core.engine.compaction.walk import walk_window
from shard_core.types import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    MessageDetails,
    MessageEntry,
    SessionEntry,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    ToolResultDetails,
    ToolResultEntry,
    UserMessage,
)
from tests.fixtures.sessions.builders import SessionBuilder
from tests.unit.engine.compaction.test_determinism import OPS, SETTINGS, build

TEXT = st.sampled_from(["", "  ", "fix the parser", "done.", "exit code 1", "(no output)"])
TOOL = st.sampled_from(["bash", "read", "edit", "recall", "grep"])
CALL_ID = st.sampled_from(["c1", "c2", "c3", "c4", "c5", "c6"])
PIECE = st.one_of(
    st.tuples(st.just("text"), TEXT),
    st.tuples(st.just("thinking"), TEXT),
    st.tuples(st.just("image")),
    st.tuples(st.just("call"), CALL_ID, TOOL, TEXT),
    st.tuples(st.just("inline"), CALL_ID, TEXT, st.booleans()),
)
RAW = st.one_of(
    st.tuples(st.just("user"), st.lists(PIECE, min_size=1, max_size=3)),
    st.tuples(st.just("assistant"), st.lists(PIECE, min_size=1, max_size=3)),
    st.tuples(st.just("result"), CALL_ID, TOOL, TEXT, st.booleans(), st.sampled_from([None, 0, 2])),
)


def _block(piece: tuple[Any, ...]) -> ContentBlock:
    kind, *args = piece
    if kind == "text":
        return TextBlock(text=args[0])
    if kind == "thinking":
        return ThinkingBlock(thinking=args[0])
    if kind == "image":
        return ImageBlock(media_type="image/png", data="AAAA")
    if kind == "call":
        return ToolCallBlock(id=args[0], name=args[1], input={"command": args[2], "path": "a.py"})
    return ToolResultBlock(
        tool_call_id=args[0], content=[TextBlock(text=args[1])], is_error=args[2]
    )


def raw_session(ops: list[tuple[Any, ...]]) -> list[SessionEntry]:
    entries: list[SessionEntry] = []
    for n, op in enumerate(ops):
        if op[0] == "result":
            _, call_id, name, text, error, code = op
            details = {} if code is None else {"exit_code": code}
            result = ToolResult(content=[TextBlock(text=text)], is_error=error, details=details)
            entries.append(
                ToolResultEntry(
                    id=f"r{n}",
                    ts=0.0,
                    details=ToolResultDetails(tool_call_id=call_id, name=name, result=result),
                )
            )
            continue
        content = [_block(piece) for piece in op[1]]
        message = (
            UserMessage(content=content) if op[0] == "user" else AssistantMessage(content=content)
        )
        entries.append(MessageEntry(id=f"m{n}", ts=0.0, details=MessageDetails(message=message)))
    return entries


def _same_index(got: BlockIndex, blocks: list[Any]) -> None:
    want = index_blocks(blocks)
    assert got.blocks == blocks
    assert {k: v for k, v in got.kinds.items() if v} == {k: v for k, v in want.kinds.items() if v}
    assert {k: v for k, v in got.names.items() if v} == want.names
    assert got.calls == want.calls
    assert got.results == want.results


def _check(entries: list[SessionEntry], base: int = 0) -> None:
    positions = [p for p, e in enumerate(entries) if e.type in ("message", "tool_result")]
    context = [entries[p] for p in positions]
    indices = [p + base for p in positions]
    walked = walk_window(context, positions, indices)
    scan = scan_window(entries, positions)
    assert walked.scan == scan
    for k in range(len(context) + 1):
        if k == len(context) or scan.safe[k]:
            blocks, index = walked.blocks(k)
            assert blocks == normalize(context[:k], indices=indices[:k])
            _same_index(index, blocks)


@SETTINGS
@given(ops=st.lists(RAW, max_size=30), base=st.integers(0, 50))
def test_the_walk_gives_the_scan_and_the_blocks_of_every_safe_cut(
    ops: list[tuple[Any, ...]], base: int
) -> None:
    _check(raw_session(ops), base)


@SETTINGS
@given(ops=st.lists(OPS, max_size=40))
def test_the_walk_agrees_on_the_usual_sessions(ops: list[tuple[Any, ...]]) -> None:
    _check(build(ops).entries)


def test_a_call_answered_twice_or_before_it_was_made_falls_back_to_normalize() -> None:
    for ops in (
        [
            ("assistant", [("call", "c1", "bash", "ls")]),
            ("result", "c1", "bash", "a", False, 0),
            ("result", "c1", "bash", "b", False, 0),
        ],
        [("result", "c1", "bash", "a", False, 0), ("assistant", [("call", "c1", "bash", "ls")])],
        [("assistant", [("call", "c1", "read", "x"), ("call", "c1", "read", "y")])],
    ):
        entries = raw_session(ops)
        walked = walk_window(entries, range(len(entries)), range(len(entries)))
        assert not walked.regular
        _check(entries)


def test_a_bash_call_gets_its_result_at_the_result_entry_and_an_unanswered_one_none() -> None:
    b = SessionBuilder()
    b.user("go")
    lost = b.new_call("bash", {"command": "sleep 9"})
    b.say("", [lost])
    b.bash("pytest -q", "3 passed", 0)
    positions = [p for p, e in enumerate(b.entries) if e.type in ("message", "tool_result")]
    entries = [b.entries[p] for p in positions]
    blocks, index = walk_window(entries, positions, positions).blocks(len(entries))
    assert [(x.kind, x.entry_index) for x in blocks] == [("user", 1), ("bash", 2), ("bash", 4)]
    assert [b.kind for b in index.bash()] == ["bash", "bash"]
    assert blocks == normalize(entries, indices=positions)


def test_the_live_window_holds_the_context_and_the_other_entries_after_a_compaction() -> None:
    log = "build output line\n" * 400
    b = build([("user", "one"), ("bash", "make", log, 0), ("plan", [("step", False)])])
    b.user("two")
    b.bash("make", log, 0)
    details = DeterministicCompactor(keep_recent_tokens=3_000).compact(
        CompactionInput(b.entries, estimate_entries(b.entries) + 500, 100_000, 9_000, "manual", 0)
    )
    assert details is not None
    b.compaction(details)
    b.plan([("step", True)])
    b.bash("pytest", "ok", 0)
    window = live_window(b.entries)
    start = window.start
    assert start < len(b.entries) - 3  # the kept turn is before the compaction entry
    assert window.positions == [
        p for p in range(start, len(b.entries)) if b.entries[p].type in ("message", "tool_result")
    ]
    assert window.others == [
        p
        for p in range(start, len(b.entries))
        if b.entries[p].type not in ("message", "tool_result", "compaction")
    ]
