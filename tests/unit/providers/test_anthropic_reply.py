"""The final Anthropic message as ours: block mapping, stop reasons, usage, a cut-short stream."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message

from shard_core.providers import AnthropicProvider
from shard_core.types import (
    AssistantMessage,
    MessageDone,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)
from shard_core.types.errors import ProviderRetryableError


def sdk_message(content: list[dict[str, Any]], stop_reason: str | None) -> Message:
    return Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_input_tokens": None},
        }
    )


def done(message: Message) -> MessageDone:
    provider = AnthropicProvider("claude-haiku-4-5", api_key="k")
    return provider._done(message)  # pyright: ignore[reportPrivateUsage]


def test_blocks_in_order_without_redacted_thinking_or_empty_text() -> None:
    content = [
        {"type": "thinking", "thinking": "hm", "signature": "s1"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": ""},
        {"type": "text", "text": "Listing."},
        {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
    ]
    usage = Usage(input_tokens=10, output_tokens=2, cost_usd=0.00002)  # haiku 4.5: 1 in, 5 out
    assert done(sdk_message(content, "tool_use")) == MessageDone(
        message=AssistantMessage(
            content=[
                ThinkingBlock(thinking="hm", signature="s1"),
                TextBlock(text="Listing."),
                ToolCallBlock(id="toolu_1", name="ls", input={"path": "."}),
            ],
            model="claude-haiku-4-5",
            stop_reason="tool_use",
            usage=usage,
        ),
        usage=usage,
    )


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("end_turn", "end_turn"),
        ("stop_sequence", "end_turn"),
        ("refusal", "refusal"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("tool_use", "tool_use"),
    ],
)
def test_stop_reasons(theirs: str, ours: str) -> None:
    message = done(sdk_message([{"type": "text", "text": "x"}], theirs)).message
    assert message.stop_reason == ours


def test_a_message_without_stop_reason_was_cut_short() -> None:
    with pytest.raises(ProviderRetryableError, match="ended before message_stop"):
        done(sdk_message([{"type": "text", "text": "half"}], None))
