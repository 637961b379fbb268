"""AnthropicProvider and OpenAIProvider through the real SDKs against the fake LLM server."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from shard_core.contracts import Provider
from shard_core.providers import AnthropicProvider, OpenAIProvider
from shard_core.types import (
    AssistantMessage,
    ImageBlock,
    Message,
    MessageDone,
    ProviderRequest,
    StreamEvent,
    SystemSection,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    ToolSpec,
    Usage,
    UserMessage,
)
from shard_core.types.errors import (
    ProviderAuthError,
    ProviderRequestError,
    ProviderRetryableError,
)
from tests.fixtures.fake_llm import FakeLLMServer

pytestmark = pytest.mark.integration

TOOL_INPUT = {"path": "src/app.py", "range": [10, 20], "opts": {"strict": True, "note": "a é b"}}
READ = ToolSpec(name="read", description="Read a file.", input_schema={"type": "object"})
BASH = ToolSpec(name="bash", description="Run a command.", input_schema={"type": "object"})
SYSTEM = [
    SystemSection(name="identity", text="You are Shard."),
    SystemSection(name="tools", text="Use tools."),
    SystemSection(name="cwd", text="cwd: /work", stable=False),
]
PIXEL = "iVBORw0KGgo="

# user, assistant with a tool call, the tool result, then a steering note: the shape the
# engine produces, with two user entries in a row.
CONVERSATION: list[Message] = [
    UserMessage(content=[TextBlock(text="Fix the bug.")]),
    AssistantMessage(
        content=[
            ThinkingBlock(thinking="unsigned, from elsewhere"),
            TextBlock(text="Reading."),
            ToolCallBlock(id="call_1", name="read", input={"path": "calc.py"}),
        ]
    ),
    UserMessage(content=[ToolResultBlock(tool_call_id="call_1", content=[TextBlock(text="x=1")])]),
    UserMessage(content=[TextBlock(text="Also check tests.")]),
]


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def claude(srv: FakeLLMServer, model: str = "claude-test") -> AnthropicProvider:
    return AnthropicProvider(model, api_key="test-key", base_url=srv.anthropic_base_url)


def gpt(srv: FakeLLMServer, model: str = "gpt-test") -> OpenAIProvider:
    return OpenAIProvider(model, api_key="test-key", base_url=srv.openai_base_url)


def ask(*messages: Message, tools: list[ToolSpec] | None = None) -> ProviderRequest:
    history = list(messages) or [UserMessage(content=[TextBlock(text="hi")])]
    return ProviderRequest(model="m", system=SYSTEM, messages=history, tools=tools or [])


async def collect(provider: Provider, request: ProviderRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


def done(events: list[StreamEvent]) -> MessageDone:
    finals = [e for e in events if isinstance(e, MessageDone)]
    assert len(finals) == 1
    assert events[-1] is finals[0]
    return finals[0]


def body(srv: FakeLLMServer, index: int = 0) -> dict[str, Any]:
    return srv.requests[index].body


# ---------------------------------------------------------------- both providers


@pytest.mark.parametrize("make", [claude, gpt])
async def test_text_streams_as_deltas_then_one_message_done(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"text": "Hello there, world!", "usage": {"input_tokens": 12, "output_tokens": 5}})
    provider = make(srv)
    events = await collect(provider, ask())
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 3
    assert "".join(d.text for d in deltas) == "Hello there, world!"
    usage = Usage(input_tokens=12, output_tokens=5, cost_usd=None)  # a test model: no price
    assert done(events) == MessageDone(
        message=AssistantMessage(
            content=[TextBlock(text="Hello there, world!")],
            model=provider.model,
            stop_reason="end_turn",
            usage=usage,
        ),
        usage=usage,
    )


@pytest.mark.parametrize("make", [claude, gpt])
async def test_tool_call_split_over_deltas_arrives_whole(srv: FakeLLMServer, make: Any) -> None:
    calls = [
        {"id": "toolu_1", "name": "read", "input": TOOL_INPUT},
        {"id": "toolu_2", "name": "bash", "input": {"command": "ls"}},
    ]
    srv.push({"text": "Reading.", "tool_calls": calls})
    events = await collect(make(srv), ask(tools=[READ, BASH]))
    pieces = [e.partial_json for e in events if isinstance(e, ToolCallDelta) and e.id == "toolu_1"]
    assert len([p for p in pieces if p]) >= 3
    assert json.loads("".join(pieces)) == TOOL_INPUT
    message = done(events).message
    assert message.content == [
        TextBlock(text="Reading."),
        ToolCallBlock(id="toolu_1", name="read", input=TOOL_INPUT),
        ToolCallBlock(id="toolu_2", name="bash", input={"command": "ls"}),
    ]
    assert message.stop_reason == "tool_use"


@pytest.mark.parametrize("make", [claude, gpt])
async def test_max_tokens_stop_reason(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"text": "cut off", "stop_reason": "max_tokens"})
    assert done(await collect(make(srv), ask())).message.stop_reason == "max_tokens"


@pytest.mark.parametrize("make", [claude, gpt])
async def test_rate_limit_is_retryable_with_retry_after(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"error": {"status": 429, "message": "slow down", "retry_after": 0.25}})
    with pytest.raises(ProviderRetryableError, match="slow down") as caught:
        await collect(make(srv), ask())
    assert (caught.value.status, caught.value.retry_after) == (429, 0.25)


@pytest.mark.parametrize("make", [claude, gpt])
@pytest.mark.parametrize("status", [500, 529])
async def test_server_errors_are_retryable(srv: FakeLLMServer, make: Any, status: int) -> None:
    srv.push({"error": {"status": status, "message": "overloaded"}})
    with pytest.raises(ProviderRetryableError, match="overloaded") as caught:
        await collect(make(srv), ask())
    assert (caught.value.status, caught.value.retry_after) == (status, None)


@pytest.mark.parametrize("make", [claude, gpt])
async def test_unauthorized_is_an_auth_error(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"error": {"status": 401, "message": "invalid x-api-key"}})
    with pytest.raises(ProviderAuthError, match=r"401.*invalid x-api-key"):
        await collect(make(srv), ask())


@pytest.mark.parametrize("make", [claude, gpt])
async def test_bad_request_says_what_the_api_said(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"error": {"status": 400, "message": "messages.1: roles must alternate"}})
    with pytest.raises(ProviderRequestError, match=r"400.*roles must alternate") as caught:
        await collect(make(srv), ask())
    assert not isinstance(caught.value, ProviderRetryableError)


@pytest.mark.parametrize("kind", [AnthropicProvider, OpenAIProvider])
async def test_unreachable_server_is_retryable(kind: type[Provider]) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = kind("m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1")  # type: ignore[call-arg]
    with pytest.raises(ProviderRetryableError, match="connection failed"):
        await collect(provider, ask())


@pytest.mark.parametrize("make", [claude, gpt])
async def test_cancelling_the_consumer_closes_the_stream(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"text": "never finished at all", "hang": 4})
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in make(srv).stream(ask()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(srv.wait_idle, 2)
    assert srv.requests[0].outcome == "disconnected"


@pytest.mark.parametrize("make", [claude, gpt])
async def test_a_consumer_that_stops_early_closes_the_stream(srv: FakeLLMServer, make: Any) -> None:
    srv.push({"text": "never finished at all", "hang": 4})
    stream = make(srv).stream(ask())
    first = await anext(stream)
    assert isinstance(first, TextDelta)
    await stream.aclose()
    await asyncio.to_thread(srv.wait_idle, 2)
    assert srv.requests[0].outcome == "disconnected"


# ---------------------------------------------------------------- anthropic


async def test_anthropic_request_merges_roles_and_marks_cache_breakpoints(
    srv: FakeLLMServer,
) -> None:
    srv.push({"text": "ok"})
    await collect(claude(srv), ask(*CONVERSATION, tools=[READ, BASH]))
    sent = body(srv)
    ephemeral = {"type": "ephemeral"}
    assert sent["system"] == [
        {"type": "text", "text": "You are Shard."},
        {"type": "text", "text": "Use tools.", "cache_control": ephemeral},
        {"type": "text", "text": "cwd: /work"},
    ]
    assert [t.get("cache_control") for t in sent["tools"]] == [None, ephemeral]
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Fix the bug."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "call_1", "name": "read", "input": {"path": "calc.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": [{"type": "text", "text": "x=1"}],
                },
                {"type": "text", "text": "Also check tests.", "cache_control": ephemeral},
            ],
        },
    ]
    assert (sent["model"], sent["max_tokens"], sent["stream"]) == ("claude-test", 8192, True)


async def test_anthropic_error_results_and_images(srv: FakeLLMServer) -> None:
    srv.push({"text": "ok"})
    image = ImageBlock(media_type="image/png", data=PIXEL)
    result = ToolResultBlock(tool_call_id="c", content=[TextBlock(text="no"), image], is_error=True)
    call = ToolCallBlock(id="c", name="read")
    await collect(
        claude(srv),
        ask(
            UserMessage(content=[TextBlock(text="look"), image]),
            AssistantMessage(content=[call]),
            UserMessage(content=[result]),
        ),
    )
    source = {"type": "base64", "media_type": "image/png", "data": PIXEL}
    user, _, results = body(srv)["messages"]
    assert user["content"][1] == {"type": "image", "source": source}
    assert results["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "c",
            "content": [{"type": "text", "text": "no"}, {"type": "image", "source": source}],
            "is_error": True,
            "cache_control": {"type": "ephemeral"},
        }
    ]


async def test_anthropic_thinking_and_signature_round_trip(srv: FakeLLMServer) -> None:
    srv.push({"thinking": "Look at calc.py first.", "signature": "sig-123", "text": "Done."})
    srv.push({"text": "ok"})
    provider = claude(srv)
    events = await collect(provider, ask())
    thoughts = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thoughts == "Look at calc.py first."
    reply = done(events).message
    assert reply.content == [
        ThinkingBlock(thinking="Look at calc.py first.", signature="sig-123"),
        TextBlock(text="Done."),
    ]
    follow_up = UserMessage(content=[TextBlock(text="thanks")])
    await collect(provider, ask(UserMessage(content=[TextBlock(text="hi")]), reply, follow_up))
    assert body(srv, 1)["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Look at calc.py first.", "signature": "sig-123"},
        {"type": "text", "text": "Done."},
    ]


async def test_anthropic_usage_and_cost(srv: FakeLLMServer) -> None:
    usage = {
        "input_tokens": 1000,
        "output_tokens": 200,
        "cache_read_tokens": 10_000,
        "cache_creation_tokens": 2000,
    }
    srv.push({"text": "ok", "usage": usage})
    reply = done(await collect(claude(srv, "claude-sonnet-4-6"), ask()))
    # sonnet: 3 in, 15 out, 0.3 cache read, 3.75 cache write, per million tokens
    expected = (1000 * 3 + 200 * 15 + 10_000 * 0.3 + 2000 * 3.75) / 1_000_000
    assert reply.usage.model_dump() == {
        "input_tokens": 1000,
        "output_tokens": 200,
        "cache_read_tokens": 10_000,
        "cache_write_tokens": 2000,
        "cost_usd": pytest.approx(expected),
    }
    assert reply.message.usage == reply.usage


@pytest.mark.parametrize(
    ("kind", "variable"),
    [(AnthropicProvider, "ANTHROPIC_API_KEY"), (OpenAIProvider, "OPENAI_API_KEY")],
)
async def test_without_a_key_is_an_auth_error(
    srv: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, kind: type[Provider], variable: str
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    provider = kind("m", base_url=srv.openai_base_url)  # type: ignore[call-arg]
    with pytest.raises(ProviderAuthError, match=variable):
        await collect(provider, ask())
    assert srv.requests == []


# ---------------------------------------------------------------- openai


async def test_openai_request_has_tool_messages_and_json_arguments(srv: FakeLLMServer) -> None:
    srv.push({"text": "ok"})
    await collect(gpt(srv), ask(*CONVERSATION, tools=[READ]))
    sent = body(srv)
    assert sent["messages"] == [
        {"role": "system", "content": "You are Shard.\n\nUse tools.\n\ncwd: /work"},
        {"role": "user", "content": "Fix the bug."},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "calc.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "x=1"},
        {"role": "user", "content": "Also check tests."},
    ]
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": {"type": "object"},
            },
        }
    ]
    assert sent["stream_options"] == {"include_usage": True}
    assert (sent["model"], sent["max_tokens"], sent["stream"]) == ("gpt-test", 8192, True)


async def test_openai_usage_splits_cached_prompt_tokens_and_costs(srv: FakeLLMServer) -> None:
    usage = {"input_tokens": 1000, "output_tokens": 200, "cache_read_tokens": 4000}
    srv.push({"text": "ok", "usage": usage})
    reply = done(await collect(gpt(srv, "gpt-4o"), ask()))
    # gpt-4o: 2.5 in, 10 out, 1.25 cached, per million tokens
    expected = (1000 * 2.5 + 200 * 10 + 4000 * 1.25) / 1_000_000
    assert reply.usage.model_dump() == {
        "input_tokens": 1000,
        "output_tokens": 200,
        "cache_read_tokens": 4000,
        "cache_write_tokens": 0,
        "cost_usd": pytest.approx(expected),
    }


@pytest.mark.parametrize("make", [claude, gpt])
async def test_a_stream_cut_short_is_retryable(make: Any) -> None:
    server = FakeLLMServer([{"text": "one two three four five", "hang": 5}])
    server.start()
    provider = make(server)
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in provider.stream(ask()):
            seen.append(event)
            if len(seen) == 1:
                await asyncio.to_thread(server.stop)  # the server dies mid-reply

    with pytest.raises(ProviderRetryableError):
        await consume()
    assert not any(isinstance(e, MessageDone) for e in seen)
