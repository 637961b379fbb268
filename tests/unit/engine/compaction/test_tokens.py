"""Token estimates: characters counted by hand, four to a token, plus the per-entry framing.

estimate_entry dispatches on the exact class first (a failed isinstance on a model class is
slow); subclasses of the entry and block classes must count the same as the classes.
"""

from __future__ import annotations

from shard_core.engine.compaction import estimate_entries, estimate_entry
from shard_core.types import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    MessageDetails,
    MessageEntry,
    ResultContent,
    SessionHeaderDetails,
    SessionHeaderEntry,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    ToolResultDetails,
    ToolResultEntry,
    UserMessage,
)

OVERHEAD = 4


class MyText(TextBlock):
    pass


class MyCall(ToolCallBlock):
    pass


class MyMessageEntry(MessageEntry):
    pass


class MyResultEntry(ToolResultEntry):
    pass


def _message(
    *blocks: ContentBlock, role: str = "assistant", cls: type[MessageEntry] = MessageEntry
) -> MessageEntry:
    message = (UserMessage if role == "user" else AssistantMessage)(content=list(blocks))
    return cls(id="m", ts=0.0, details=MessageDetails(message=message))


def _result(
    *content: ResultContent, cls: type[ToolResultEntry] = ToolResultEntry
) -> ToolResultEntry:
    result = ToolResult(content=list(content))
    return cls(
        id="r", ts=0.0, details=ToolResultDetails(tool_call_id="c1", name="read", result=result)
    )


def test_every_block_kind_counts_its_characters() -> None:
    call = ToolCallBlock(id="c1", name="read", input={"path": "a.py", "n": [1, 22]})
    # len("read") + '{"path": "a.py", "n": [1, 22]}' as json_chars counts it (no separators):
    # 4 + (2 + (4 + 4 + 6) + (1 + 4 + 7))
    blocks = [
        TextBlock(text="x" * 11),
        ThinkingBlock(thinking="y" * 7),
        call,
        ToolResultBlock(tool_call_id="c0", content=[TextBlock(text="z" * 9)]),
        ImageBlock(media_type="image/png", data="AAAA"),
    ]
    chars = 11 + 7 + (4 + 28) + 9 + 1200 * 4  # 4,859: one more is a token more
    assert estimate_entry(_message(*blocks)) == -(-chars // 4) + OVERHEAD


def test_subclasses_count_like_their_classes() -> None:
    plain = _message(TextBlock(text="hello there"), ToolCallBlock(id="c", name="ls", input={}))
    sub = _message(
        MyText(text="hello there"), MyCall(id="c", name="ls", input={}), cls=MyMessageEntry
    )
    assert estimate_entry(sub) == estimate_entry(plain) == -(-(11 + 2 + 2) // 4) + OVERHEAD
    text = TextBlock(text="r" * 41)
    assert estimate_entry(_result(text, cls=MyResultEntry)) == estimate_entry(_result(text))


def test_a_result_entry_counts_its_text_and_images() -> None:
    assert estimate_entry(_result(TextBlock(text="r" * 41))) == 11 + OVERHEAD
    two = _result(TextBlock(text="r" * 8), ImageBlock(media_type="image/png", data="AA"))
    assert estimate_entry(two) == (8 + 4800) // 4 + OVERHEAD
    assert estimate_entry(_result()) == OVERHEAD


def test_entries_that_are_no_messages_cost_nothing() -> None:
    header = SessionHeaderEntry(
        id="h", ts=0.0, details=SessionHeaderDetails(session_id="s", cwd="/")
    )
    assert estimate_entry(header) == 0
    entries = [header, _message(TextBlock(text="abcd"), role="user")]
    assert estimate_entries(entries) == 1 + OVERHEAD
