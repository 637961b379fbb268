"""The fake LLM server against the real anthropic and openai SDKs, sync and async."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletionChunk

from tests.fixtures.fake_llm import ErrorReply, FakeLLMServer, Reply, ToolCall, step_from_dict

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]
USER: list[Any] = [{"role": "user", "content": "hi"}]
TOOL_INPUT = {"path": "src/app.py", "range": [10, 20], "opts": {"strict": True, "note": "a é b"}}
LIMITED = {"error": {"status": 429, "message": "slow down", "retry_after": 0.01}}


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def claude(srv: FakeLLMServer) -> Iterator[anthropic.Anthropic]:
    url = srv.anthropic_base_url
    with anthropic.Anthropic(api_key="test-key", base_url=url, max_retries=0, timeout=5) as client:
        yield client


@pytest.fixture
def gpt(srv: FakeLLMServer) -> Iterator[openai.OpenAI]:
    url = srv.openai_base_url
    with openai.OpenAI(api_key="test-key", base_url=url, max_retries=0, timeout=5) as client:
        yield client


@pytest.fixture
async def async_claude(srv: FakeLLMServer) -> AsyncIterator[anthropic.AsyncAnthropic]:
    url = srv.anthropic_base_url
    async with anthropic.AsyncAnthropic(
        api_key="k", base_url=url, max_retries=0, timeout=5
    ) as client:
        yield client


@pytest.fixture
async def async_gpt(srv: FakeLLMServer) -> AsyncIterator[openai.AsyncOpenAI]:
    url = srv.openai_base_url
    async with openai.AsyncOpenAI(api_key="k", base_url=url, max_retries=0, timeout=5) as client:
        yield client


def script(srv: FakeLLMServer, steps: Iterable[Reply | ErrorReply | Mapping[str, Any]]) -> None:
    for step in steps:
        srv.push(step)


def claude_message(client: anthropic.Anthropic) -> Message:
    with client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream:
        return stream.get_final_message()


def gpt_chunks(client: openai.OpenAI) -> list[ChatCompletionChunk]:
    stream = client.chat.completions.create(
        model="gpt-test", messages=USER, stream=True, stream_options={"include_usage": True}
    )
    with stream:
        return list(stream)


# ---------------------------------------------------------------- anthropic


def test_anthropic_text_reply_assembled_by_stream_helper(
    srv: FakeLLMServer, claude: anthropic.Anthropic
) -> None:
    srv.push({"text": "Hello there, world!", "usage": {"input_tokens": 12, "output_tokens": 5}})
    assert claude_message(claude).model_dump(exclude_none=True) == {
        "id": "msg_fake000001",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "Hello there, world!"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 12,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def test_anthropic_raw_event_sequence(srv: FakeLLMServer, claude: anthropic.Anthropic) -> None:
    srv.push({"text": "a b", "tool_calls": [{"id": "t1", "name": "ls"}]})
    events = list(claude.messages.create(model="m", max_tokens=8, messages=USER, stream=True))
    kinds = [(e.type, getattr(getattr(e, "delta", None), "type", None)) for e in events]
    assert kinds == [
        ("message_start", None),
        ("content_block_start", None),
        ("content_block_delta", "text_delta"),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "input_json_delta"),  # "" first, as the live API does
        ("content_block_delta", "input_json_delta"),
        ("content_block_delta", "input_json_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]


async def test_anthropic_async_tool_call_input_split_across_deltas(
    srv: FakeLLMServer, async_claude: anthropic.AsyncAnthropic
) -> None:
    call = {"id": "toolu_1", "name": "read", "input": TOOL_INPUT}
    srv.push({"text": "Reading.", "tool_calls": [call]})
    async with async_claude.messages.stream(model="m", max_tokens=64, messages=USER) as stream:
        pieces = [e.partial_json async for e in stream if e.type == "input_json"]
        message = await stream.get_final_message()
    assert len([p for p in pieces if p]) >= 3
    assert json.loads("".join(pieces)) == TOOL_INPUT
    assert message.stop_reason == "tool_use"
    tool_use = message.content[1]
    assert tool_use.type == "tool_use"
    assert (tool_use.id, tool_use.name, tool_use.input) == ("toolu_1", "read", TOOL_INPUT)


def test_anthropic_thinking_block_with_signature(
    srv: FakeLLMServer, claude: anthropic.Anthropic
) -> None:
    srv.push({"thinking": "First, look at the file.", "signature": "sig-123", "text": "Done."})
    srv.push({"thinking": "Unsigned in the script."})
    assert [block.model_dump(exclude_none=True) for block in claude_message(claude).content] == [
        {"type": "thinking", "thinking": "First, look at the file.", "signature": "sig-123"},
        {"type": "text", "text": "Done."},
    ]
    thinking = claude_message(claude).content[0]
    assert thinking.type == "thinking"
    assert thinking.signature  # a stable made-up signature when the script gives none


def test_non_streaming_request_is_rejected_without_using_a_step(
    srv: FakeLLMServer, claude: anthropic.Anthropic
) -> None:
    srv.push({"text": "kept"})
    with pytest.raises(anthropic.BadRequestError, match="stream required"):
        claude.messages.create(model="m", max_tokens=8, messages=USER)
    assert srv.remaining_steps == 1
    assert srv.requests[0].step is None


# ---------------------------------------------------------------- openai


def test_openai_text_reply_with_usage_chunk(srv: FakeLLMServer, gpt: openai.OpenAI) -> None:
    usage = {"input_tokens": 7, "output_tokens": 3, "cache_read_tokens": 4}
    srv.push({"text": "Hi from the fake.", "usage": usage})
    chunks = gpt_chunks(gpt)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hi from the fake."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.model_dump(exclude_none=True) == {
        "prompt_tokens": 11,
        "completion_tokens": 3,
        "total_tokens": 14,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


async def test_openai_async_tool_call_arguments_split_across_deltas(
    srv: FakeLLMServer, async_gpt: openai.AsyncOpenAI
) -> None:
    calls = [
        {"id": "call_1", "name": "read", "input": TOOL_INPUT},
        {"id": "call_2", "name": "ls", "input": {}},
    ]
    srv.push({"tool_calls": calls})
    stream = await async_gpt.chat.completions.create(model="m", messages=USER, stream=True)
    choices = [chunk.choices[0] async for chunk in stream]
    arguments: dict[int, list[str]] = {}
    for choice in choices:
        for call in choice.delta.tool_calls or []:
            assert call.function is not None
            arguments.setdefault(call.index, []).append(call.function.arguments or "")
    assert len([a for a in arguments[0] if a]) >= 3
    assert json.loads("".join(arguments[0])) == TOOL_INPUT
    assert json.loads("".join(arguments[1])) == {}
    assert choices[-1].finish_reason == "tool_calls"


def test_openai_stream_helper_assembles_tool_calls(srv: FakeLLMServer, gpt: openai.OpenAI) -> None:
    srv.push(Reply(text="Sure.", tool_calls=(ToolCall("call_9", "read", TOOL_INPUT),)))
    with gpt.chat.completions.stream(model="m", messages=USER) as stream:
        message = stream.get_final_completion().choices[0].message
    assert message.content == "Sure."
    assert message.tool_calls is not None
    [call] = message.tool_calls
    assert call.type == "function"
    assert (call.id, call.function.name) == ("call_9", "read")
    assert json.loads(call.function.arguments) == TOOL_INPUT


# ---------------------------------------------------------------- errors and retries


def test_rate_limit_is_retried_by_both_sdks(
    srv: FakeLLMServer, claude: anthropic.Anthropic, gpt: openai.OpenAI
) -> None:
    script(srv, [LIMITED, {"text": "ok"}, LIMITED, {"text": "ok"}])
    [block] = claude_message(claude.with_options(max_retries=1)).content
    assert block.model_dump(exclude_none=True) == {"type": "text", "text": "ok"}
    assert gpt_chunks(gpt.with_options(max_retries=1))[1].choices[0].delta.content == "ok"
    assert [r.headers["x-stainless-retry-count"] for r in srv.requests] == ["0", "1", "0", "1"]


def test_rate_limit_surfaces_without_retries(
    srv: FakeLLMServer, claude: anthropic.Anthropic, gpt: openai.OpenAI
) -> None:
    limited = {"error": {"status": 429, "message": "slow down", "retry_after": 2}}
    script(srv, [limited, limited])
    with pytest.raises(anthropic.RateLimitError) as caught:
        claude_message(claude)
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
        "request_id": "req_fake000001",
    }
    assert (caught.value.type, caught.value.request_id) == ("rate_limit_error", "req_fake000001")
    assert caught.value.response.headers["retry-after"] == "2"
    with pytest.raises(openai.RateLimitError) as o_caught:
        gpt_chunks(gpt)
    assert o_caught.value.body == {
        "message": "slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    assert o_caught.value.request_id == "req_fake000002"
    assert o_caught.value.response.headers["retry-after-ms"] == "2000"


def test_authentication_error_in_both_sdks(
    srv: FakeLLMServer, claude: anthropic.Anthropic, gpt: openai.OpenAI
) -> None:
    denied = ErrorReply(status=401, message="invalid x-api-key")
    assert denied.type == "authentication_error"
    script(srv, [denied, denied])
    with pytest.raises(anthropic.AuthenticationError, match="invalid x-api-key"):
        claude_message(claude)
    with pytest.raises(openai.AuthenticationError) as caught:
        gpt_chunks(gpt)
    assert caught.value.code == "invalid_api_key"


def test_exhausted_script_fails_loudly_and_is_not_retried(
    srv: FakeLLMServer, claude: anthropic.Anthropic, gpt: openai.OpenAI
) -> None:
    srv.push({"text": "only one"})
    claude_message(claude)
    with pytest.raises(anthropic.InternalServerError, match="exhausted after 1 requests"):
        claude_message(claude.with_options(max_retries=2))
    with pytest.raises(openai.InternalServerError, match="exhausted after 1 requests"):
        gpt_chunks(gpt.with_options(max_retries=2))
    assert len(srv.requests) == 3


def test_unknown_path_is_a_clear_404(srv: FakeLLMServer, claude: anthropic.Anthropic) -> None:
    wrong = claude.with_options(base_url=srv.openai_base_url)
    with pytest.raises(anthropic.NotFoundError, match="not /v1/v1/messages"):
        claude_message(wrong)


# ---------------------------------------------------------------- recording, timing, shutdown


def test_requests_recorded_in_order_with_bodies_and_pushed_steps(
    srv: FakeLLMServer, claude: anthropic.Anthropic, gpt: openai.OpenAI
) -> None:
    system: list[Any] = [
        {"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}
    ]
    srv.push({"text": "one"})
    with claude.messages.stream(model="m", max_tokens=8, system=system, messages=USER) as stream:
        stream.get_final_message()
    srv.push({"text": "two"})
    gpt_chunks(gpt)
    srv.wait_idle()  # the server logs a response as completed just after its last byte
    first, second = srv.requests
    assert (first.method, first.path) == ("POST", "/v1/messages")
    assert (second.method, second.path) == ("POST", "/v1/chat/completions")
    assert first.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert first.body["messages"] == USER
    assert first.headers["authorization"] == "Bearer test-key"
    assert "anthropic-version" in first.headers
    assert second.body["stream_options"] == {"include_usage": True}
    assert first.timestamp < second.timestamp
    assert [r.outcome for r in (first, second)] == ["completed", "completed"]
    assert [r.step for r in (first, second)] == [Reply(text="one"), Reply(text="two")]


def test_hang_holds_stream_until_client_disconnects(
    srv: FakeLLMServer, claude: anthropic.Anthropic
) -> None:
    srv.push({"text": "never finished", "hang": 3})
    stream = claude.messages.create(model="m", max_tokens=8, messages=USER, stream=True)
    with stream:
        assert next(iter(stream)).type == "message_start"
        assert srv.requests[0].outcome == "pending"
    srv.wait_idle(timeout=2)
    assert srv.requests[0].outcome == "disconnected"


async def test_cancelling_an_async_consumer_disconnects_a_hung_stream(
    srv: FakeLLMServer, async_gpt: openai.AsyncOpenAI
) -> None:
    srv.push({"text": "never finished", "hang": 2})
    first_chunk = asyncio.Event()

    async def consume() -> None:
        stream = await async_gpt.chat.completions.create(model="m", messages=USER, stream=True)
        async with stream:
            async for _ in stream:
                first_chunk.set()

    task = asyncio.create_task(consume())
    await first_chunk.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(srv.wait_idle, 2)
    assert srv.requests[0].outcome == "disconnected"


def _raw_post(srv: FakeLLMServer) -> socket.socket:
    """A streaming chat request on a connection of its own, left open."""
    data = json.dumps({"model": "m", "messages": USER, "stream": True}).encode()
    head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: fake\r\nContent-Length: {len(data)}\r\n"
    sock = socket.create_connection(("127.0.0.1", int(srv.base_url.rsplit(":", 1)[1])))
    sock.sendall(head.encode() + b"Content-Type: application/json\r\n\r\n" + data)
    return sock


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_request_is_in_flight_until_its_client_hangs_up_not_until_the_fake_notices() -> None:
    """max_in_flight measures a client: a connection it closed before sending the next request
    does not count beside that request, however late this loop gets to the close; one that is
    still open does."""
    script = [{"text": "a", "delay": 60}, {"text": "b", "delay": 60}, {"text": "c"}]
    with FakeLLMServer(script) as srv:
        first = _raw_post(srv)
        _until(lambda: len(srv.requests) == 1, "the first request never arrived")
        second = _raw_post(srv)
        _until(lambda: len(srv.requests) == 2, "the second request never arrived")
        assert srv.max_in_flight == 2
        assert [r.outcome for r in srv.requests] == ["pending", "pending"]
        first.close()
        second.close()
        with _raw_post(srv):
            _until(lambda: len(srv.requests) == 3, "the third request never arrived")
            srv.wait_idle(timeout=30)
        assert srv.max_in_flight == 2
        assert [r.outcome for r in srv.requests] == ["disconnected", "disconnected", "completed"]


def test_delay_before_first_byte_trips_client_timeout(
    srv: FakeLLMServer, gpt: openai.OpenAI
) -> None:
    srv.push({"text": "late", "delay": 5})
    with pytest.raises(openai.APITimeoutError):
        gpt_chunks(gpt.with_options(timeout=0.2))
    srv.wait_idle(timeout=2)
    assert srv.requests[0].outcome == "disconnected"


def test_chunk_delay_spaces_events(srv: FakeLLMServer, gpt: openai.OpenAI) -> None:
    srv.push({"text": "a b c", "chunk_delay": 0.02})
    started = time.monotonic()
    assert len(gpt_chunks(gpt)) == 6  # role, three words, finish, usage; [DONE] is not a chunk
    assert time.monotonic() - started >= 0.02 * 6


def test_stop_leaves_no_thread_or_socket_even_with_a_hung_stream(
    srv: FakeLLMServer, claude: anthropic.Anthropic
) -> None:
    srv.push({"text": "x", "hang": 0})
    with claude.messages.create(model="m", max_tokens=8, messages=USER, stream=True):
        started = time.monotonic()
        srv.stop()  # must not wait for the client to let go of the hung stream
        assert time.monotonic() - started < 1
    assert srv.requests[0].outcome == "disconnected"
    assert not [t for t in threading.enumerate() if t.name == "fake-llm"]
    port = int(srv.base_url.rsplit(":", 1)[1])
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port)):
        pass


# ---------------------------------------------------------------- script format and CLI


def test_step_from_dict() -> None:
    overloaded = step_from_dict({"error": {"status": 529}})
    assert overloaded == ErrorReply(status=529, type="overloaded_error")
    reply = step_from_dict(
        {"text": "t", "tool_calls": [{"id": "c", "name": "n", "input": {"a": 1}}], "hang": 2}
    )
    assert reply == Reply(text="t", tool_calls=(ToolCall("c", "n", {"a": 1}),), hang=2)


@pytest.mark.parametrize(
    ("step", "unknown"),
    [
        ({"text": "t", "tool_call": []}, "unknown Reply key(s) in fake LLM script: ['tool_call']"),
        ({"error": {"status": 429, "retry-after": 1}}, "unknown ErrorReply key(s)"),
        ({"tool_calls": [{"id": "c", "name": "n", "args": {}}]}, "unknown ToolCall key(s)"),
        ({"error": {"status": 500}, "delay": 1}, "an error step holds only 'error'"),
        ({"tool_calls": [{"name": "n"}]}, "missing ToolCall key(s) in fake LLM script: ['id']"),
    ],
)
def test_misspelt_script_keys_fail_loudly(step: dict[str, Any], unknown: str) -> None:
    with pytest.raises(ValueError, match=re.escape(unknown)):
        FakeLLMServer([step])


def test_cli_serves_a_script_until_killed(tmp_path: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "from the CLI"}]))
    command = [sys.executable, "-m", "tests.fixtures.fake_llm", "--script", str(steps)]
    with subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            base_url = proc.stdout.readline().strip()
            assert base_url.startswith("http://127.0.0.1:")
            with openai.OpenAI(api_key="k", base_url=f"{base_url}/v1", max_retries=0) as client:
                chunks = gpt_chunks(client)
            assert "".join(c.choices[0].delta.content or "" for c in chunks[:-1]) == "from the CLI"
        finally:
            proc.terminate()
        assert proc.wait(timeout=5) == 0
