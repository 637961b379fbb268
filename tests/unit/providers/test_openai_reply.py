"""Assembling a Chat Completions stream: tool calls by index, bad arguments, reasoning fields."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk

from shard_core.providers.openai import _Reply  # pyright: ignore[reportPrivateUsage]
from shard_core.types import (
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    Usage,
)
from shard_core.types.errors import ProviderRetryableError


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
    )


def call(index: int, arguments: str, **fields: Any) -> dict[str, Any]:
    function = {
        "arguments": arguments,
        **({"name": fields.pop("name")} if "name" in fields else {}),
    }
    return {"tool_calls": [{"index": index, "function": function, **fields}]}


def test_calls_assemble_by_index_even_interleaved() -> None:
    reply = _Reply()
    events = [
        *reply.add(chunk(call(0, "", id="a", name="read"))),
        *reply.add(chunk(call(1, '{"command"', id="b", name="bash"))),
        *reply.add(chunk(call(0, '{"path": "x.py"}'))),
        *reply.add(chunk(call(1, ': "ls"}'), "tool_calls")),
    ]
    assert events[-1] == ToolCallDelta(id="b", name="bash", partial_json=': "ls"}')
    assert reply.content() == [
        ToolCallBlock(id="a", name="read", input={"path": "x.py"}),
        ToolCallBlock(id="b", name="bash", input={"command": "ls"}),
    ]
    assert reply.stop_reason() == "tool_use"


def test_invalid_or_non_object_arguments_are_kept_raw() -> None:
    reply = _Reply()
    reply.add(chunk(call(0, '{"path": "unterminated', id="a", name="read")))
    reply.add(chunk(call(1, "[1, 2]", id="b", name="ls")))
    reply.add(chunk(call(2, "  ", id="c", name="ls"), "tool_calls"))
    assert reply.content() == [
        ToolCallBlock(id="a", name="read", input={"_raw_arguments": '{"path": "unterminated'}),
        ToolCallBlock(id="b", name="ls", input={"_raw_arguments": "[1, 2]"}),
        ToolCallBlock(id="c", name="ls", input={}),
    ]


def test_servers_without_ids_or_names_and_stop_after_calls() -> None:
    reply = _Reply()
    reply.add(chunk(call(0, "{}")))
    reply.add(chunk({}, "stop"))
    assert reply.content() == [ToolCallBlock(id="call_0", name="unknown_tool", input={})]
    assert reply.stop_reason() == "tool_use"  # Ollama says "stop" after tool calls


def test_reasoning_fields_become_thinking() -> None:
    reply = _Reply()
    events = [
        *reply.add(chunk({"role": "assistant", "reasoning_content": "hm, "})),
        *reply.add(chunk({"reasoning": "yes"})),
        *reply.add(chunk({"content": "Answer."}, "stop")),
    ]
    assert events == [
        ThinkingDelta(text="hm, "),
        ThinkingDelta(text="yes"),
        TextDelta(text="Answer."),
    ]
    assert reply.content() == [ThinkingBlock(thinking="hm, yes"), TextBlock(text="Answer.")]
    assert reply.stop_reason() == "end_turn"


def test_usage_chunk_without_choices_and_length_stop() -> None:
    reply = _Reply()
    reply.add(chunk({"content": "a"}, "length"))
    details = {"cached_tokens": 100}
    usage = {"prompt_tokens": 150, "completion_tokens": 7, "total_tokens": 157}
    last = chunk({}, usage={**usage, "prompt_tokens_details": details})
    assert reply.add(last.model_copy(update={"choices": []})) == []
    assert reply.usage == Usage(input_tokens=50, output_tokens=7, cache_read_tokens=100)
    assert reply.stop_reason() == "max_tokens"
    no_details = _Reply()
    no_details.add(chunk({}, "stop", usage=usage))
    assert no_details.usage == Usage(input_tokens=150, output_tokens=7)


def test_a_stream_without_finish_reason_was_cut_short() -> None:
    reply = _Reply()
    reply.add(chunk({"content": "half a"}))
    with pytest.raises(ProviderRetryableError, match="ended before the reply was finished"):
        reply.stop_reason()
