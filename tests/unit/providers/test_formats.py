"""Request mapping edge cases for both wire formats (pure functions, no SDK)."""

from __future__ import annotations

from shard_core.providers.anthropic_format import messages_param, system_param
from shard_core.providers.openai_format import request_params
from shard_core.types import (
    AssistantMessage,
    ImageBlock,
    Message,
    ProviderRequest,
    SystemSection,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UserMessage,
)

EPHEMERAL = {"type": "ephemeral"}
IMAGE = ImageBlock(media_type="image/jpeg", data="AAAA")


def text(value: str) -> TextBlock:
    return TextBlock(text=value)


def test_anthropic_system_without_stable_sections_has_no_breakpoint() -> None:
    sections = [SystemSection(name="a", text="A", stable=False), SystemSection(name="b", text="")]
    assert system_param(sections) == [{"type": "text", "text": "A"}]
    assert system_param([]) == []


def test_anthropic_drops_what_it_cannot_send_and_keeps_alternation() -> None:
    messages: list[Message] = [
        UserMessage(content=[text("")]),
        UserMessage(content=[text("go")]),
        AssistantMessage(content=[ThinkingBlock(thinking="unsigned"), text("")]),
        AssistantMessage(content=[text("a")]),
        AssistantMessage(content=[ToolCallBlock(id="c", name="ls")]),
        UserMessage(content=[text("steer"), ToolResultBlock(tool_call_id="c")]),
    ]
    assert messages_param(messages) == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "c", "name": "ls", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c"},
                {"type": "text", "text": "steer", "cache_control": EPHEMERAL},
            ],
        },
    ]


def test_anthropic_no_breakpoint_on_a_trailing_thinking_block() -> None:
    reply = AssistantMessage(content=[ThinkingBlock(thinking="t", signature="s")])
    sent = messages_param([UserMessage(content=[text("q")]), reply])
    assert sent[-1]["content"] == [{"type": "thinking", "thinking": "t", "signature": "s"}]


def openai_messages(*messages: Message, official: bool = False) -> list[dict[str, object]]:
    request = ProviderRequest(model="m", system=[], messages=list(messages))
    return request_params(request, "m", official=official)["messages"]


def test_openai_images_error_results_and_raw_arguments() -> None:
    call = ToolCallBlock(id="c1", name="read", input={"_raw_arguments": '{"path": "a'})
    result = ToolResultBlock(
        tool_call_id="c1", content=[text("no such file"), IMAGE], is_error=True
    )
    sent = openai_messages(
        UserMessage(content=[text("see"), IMAGE]),
        AssistantMessage(content=[ThinkingBlock(thinking="dropped"), call]),
        UserMessage(content=[result, text("hurry")]),
    )
    url = {"url": "data:image/jpeg;base64,AAAA"}
    assert sent == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": url}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a'},
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "Error: no such file\n(image attached in the next message)",
        },
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": url},
                {"type": "text", "text": "hurry"},
            ],
        },
    ]


def test_openai_drops_thinking_only_messages_and_empty_results() -> None:
    sent = openai_messages(
        UserMessage(content=[text("q")]),
        AssistantMessage(content=[ThinkingBlock(thinking="only thoughts")]),
        UserMessage(content=[ToolResultBlock(tool_call_id="c")]),
    )
    assert sent == [
        {"role": "user", "content": "q"},
        {"role": "tool", "tool_call_id": "c", "content": "(no output)"},
    ]


def test_openai_official_api_gets_max_completion_tokens_and_no_empty_tools() -> None:
    request = ProviderRequest(model="m", system=[], messages=[], max_tokens=100)
    official = request_params(request, "gpt-5", official=True)
    assert official == {
        "model": "gpt-5",
        "messages": [],
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 100,
    }
    assert request_params(request, "llama", official=False)["max_tokens"] == 100
