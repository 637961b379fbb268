"""normalize: entries → blocks; every tool call paired with its result through the look-ahead."""

from __future__ import annotations

from dataclasses import fields

import pytest
from pydantic import ValidationError

from shard_core.engine.compaction import normalize
from shard_core.engine.compaction.normalize import thinking_block
from shard_core.types import (
    BLOCK_ADAPTER,
    AssistantBlock,
    BashBlock,
    MessageDetails,
    MessageEntry,
    TextBlock,
    ThinkingBlock,
    ThinkingNBlock,
    ToolCallNBlock,
    ToolResult,
    ToolResultBlock,
    ToolResultNBlock,
    UserBlock,
    UserMessage,
)
from tests.fixtures.sessions.builders import SessionBuilder


def test_a_small_session_flattens_to_blocks_in_log_order() -> None:
    b = SessionBuilder()
    b.user("Fix the parser")
    b.read("src/p.py", "def parse(): ...", text="Reading it.")
    b.bash("pytest -q", "1 failed", 1)
    b.say("Done.")

    assert normalize(b.entries) == [
        UserBlock(entry_index=1, text="Fix the parser"),
        AssistantBlock(entry_index=2, text="Reading it."),
        ToolCallNBlock(entry_index=2, id="call_0001", name="read", args={"path": "src/p.py"}),
        ToolResultNBlock(
            entry_index=3,
            id="call_0001",
            name="read",
            text="     1\tdef parse(): ...",
            is_error=False,
        ),
        BashBlock(
            entry_index=5, id="call_0002", command="pytest -q", output="1 failed", exit_code=1
        ),
        AssistantBlock(entry_index=6, text="Done."),
    ]


def test_bash_without_exit_code_detail_reads_it_from_the_text() -> None:
    b = SessionBuilder()
    call = b.new_call("bash", {"command": "make"})
    b.say("", [call])
    b.result(call, ToolResult.ok("cc: error\n\nexit code 2"))
    assert normalize(b.entries) == [
        BashBlock(entry_index=2, id=call.id, command="make", output="cc: error", exit_code=2)
    ]


def test_a_call_whose_result_never_arrived_is_kept_without_one() -> None:
    b = SessionBuilder()
    bash = b.new_call("bash", {"command": "sleep 100"})
    read = b.new_call("read", {"path": "a.py"})
    b.say("", [bash, read])
    assert normalize(b.entries) == [
        BashBlock(entry_index=1, id=bash.id, command="sleep 100", output="", exit_code=None),
        ToolCallNBlock(entry_index=1, id=read.id, name="read", args={"path": "a.py"}),
    ]


def test_recall_traffic_is_dropped_and_thinking_kept() -> None:
    b = SessionBuilder()
    b.call("recall", {"query": "auth"}, ToolResult.ok("#3 [user] auth …"))
    b.entries.append(
        MessageEntry(
            id="t1",
            ts=1.0,
            details=MessageDetails(message=UserMessage(content=[TextBlock(text="ok")])),
        )
    )
    assert normalize(b.entries) == [UserBlock(entry_index=3, text="ok")]
    thinking = MessageEntry(
        id="t2",
        ts=2.0,
        details=MessageDetails(
            message=UserMessage(content=[ThinkingBlock(thinking="hmm"), TextBlock(text=" ")])
        ),
    )
    assert normalize([thinking]) == [ThinkingNBlock(entry_index=0, text="hmm")]


def test_results_nested_in_a_user_message_pair_with_their_call() -> None:
    b = SessionBuilder()
    call = b.new_call("grep", {"pattern": "x"})
    b.say("", [call])
    nested = ToolResultBlock(tool_call_id=call.id, content=[TextBlock(text="a.py:1:x")])
    b.entries.append(
        MessageEntry(id="n1", ts=1.0, details=MessageDetails(message=UserMessage(content=[nested])))
    )
    blocks = normalize(b.entries)
    assert blocks[-1] == ToolResultNBlock(
        entry_index=2, id=call.id, name="grep", text="a.py:1:x", is_error=False
    )


def test_indices_map_positions_to_stable_entry_indices() -> None:
    b = SessionBuilder()
    b.user("hello there")
    b.bash("ls", "a\nb", 0)
    blocks = normalize(b.entries[1:], indices=[100, 101, 102])
    assert [blk.entry_index for blk in blocks] == [100, 102]


def test_blocks_made_without_validation_are_the_validated_blocks() -> None:
    b = SessionBuilder()
    b.user("Fix the parser")
    b.read("src/p.py", "def parse(): ...", text="Reading it.")
    b.bash("pytest -q", "1 failed", 1)
    b.say("", [b.new_call("bash", {"command": "sleep 9"})])  # never answered: no output
    made = normalize(b.entries)
    assert {type(x) for x in made} == {UserBlock, AssistantBlock, ToolCallNBlock,
                                       ToolResultNBlock, BashBlock}  # fmt: skip
    validated = [BLOCK_ADAPTER.validate_python(BLOCK_ADAPTER.dump_python(x)) for x in made]
    assert made == validated
    assert [repr(x) for x in made] == [repr(x) for x in validated]
    assert [BLOCK_ADAPTER.dump_json(x) for x in made] == [
        BLOCK_ADAPTER.dump_json(x) for x in validated
    ]
    # the BaseModel methods an extractor may call give the same
    assert [type(x).model_validate(x.model_dump()) for x in made] == made
    assert [x.model_dump_json() for x in made] == [
        BLOCK_ADAPTER.dump_json(x).decode() for x in made
    ]
    said = made[1]
    assert isinstance(said, AssistantBlock)
    assert said.model_copy(update={"text": "other"}) == AssistantBlock(entry_index=2, text="other")
    with pytest.raises(ValidationError):
        said.model_copy(update={"entry_index": -1})
    unanswered = made[-1]
    assert isinstance(unanswered, BashBlock)
    assert unanswered == BashBlock(entry_index=6, id=unanswered.id, command="sleep 9", output="",
                                 exit_code=None)  # fmt: skip
    for x in made:  # every slot filled: reading a missing one raises AttributeError
        assert [getattr(x, f.name) for f in fields(x)]
    thinking = thinking_block(3, "hmm")
    assert thinking == BLOCK_ADAPTER.validate_python(
        {"kind": "thinking", "entry_index": 3, "text": "hmm"}
    )


def test_blocks_validate_like_wire_models() -> None:
    with pytest.raises(ValidationError, match="bogus"):
        UserBlock(entry_index=1, text="x", bogus=1)  # pyright: ignore[reportCallIssue]
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        UserBlock(entry_index=-1, text="x")
    with pytest.raises(ValidationError, match="kind"):
        BLOCK_ADAPTER.validate_python({"kind": "nope", "entry_index": 0, "text": "x"})
    assert BLOCK_ADAPTER.dump_python(UserBlock(entry_index=2, text="hi")) == {
        "entry_index": 2, "kind": "user", "text": "hi"
    }  # fmt: skip
