"""`/shard/api/complete` on a real `shard gateway` with an OpenAI-compatible fake server: the
insert comes back, the model request carries no tool fields (vLLM rejects `tool_choice: null`),
config.json's `completion.model` wins over the agent default, a client that goes away cancels
the model request, and a bad body or no model says what to fix."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

from tests.fixtures.fake_llm import FakeLLMServer
from tests.integration.gateway.conftest import TOKEN, Servers, api, body

ASK = {
    "prefix": "def mean(xs):\n    return ",
    "suffix": "",
    "language": "python",
    "path": "stats.ipynb",
    "cells_above": ["import math"],
}


def _env(fake: FakeLLMServer) -> dict[str, str]:
    return {
        "KERNEL_SHARD_MODEL": "openai/agent-model",
        "OPENAI_API_KEY": "sk-fake-for-the-test",
        "OPENAI_BASE_URL": fake.openai_base_url,
    }


async def test_a_completion_comes_back_without_tool_fields(servers: Servers) -> None:
    with FakeLLMServer([{"text": "    return sum(xs) / len(xs)"}]) as fake:
        server = servers.start(env=_env(fake))
        answer = await api(server, "POST", "/shard/api/complete", ASK)
        assert answer.code == 200, answer.body
        assert body(answer) == {"text": "sum(xs) / len(xs)", "model": "openai/agent-model"}
        [sent] = fake.requests
        assert sorted(sent.body) == ["max_tokens", "messages", "model", "stream", "stream_options"]
        assert sent.body["model"] == "agent-model"
        assert sent.body["max_tokens"] == 256
        assert "import math" in sent.body["messages"][1]["content"]


async def test_the_completion_model_in_config_wins(servers: Servers) -> None:
    config = Path(servers.env["XDG_CONFIG_HOME"]) / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    completion = {"model": "openai/small-coder", "max_tokens": 40}
    config.write_text(json.dumps({"completion": completion}))
    with FakeLLMServer([{"text": "sum(xs)"}]) as fake:
        server = servers.start(env=_env(fake))
        answer = await api(server, "POST", "/shard/api/complete", ASK)
        assert body(answer) == {"text": "sum(xs)", "model": "openai/small-coder"}
        assert fake.requests[0].body["model"] == "small-coder"
        assert fake.requests[0].body["max_tokens"] == 40


async def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_a_client_that_goes_away_cancels_the_model_request(servers: Servers) -> None:
    with FakeLLMServer([{"text": "too late", "delay": 60}]) as fake:
        server = servers.start(env=_env(fake))
        host, port = server.url.split("//")[1].rstrip("/").split(":")
        _, writer = await asyncio.open_connection(host, int(port))
        data = json.dumps(ASK).encode()
        writer.write(
            f"POST /shard/api/complete HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: token {TOKEN}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        await _wait_for(lambda: len(fake.requests) == 1, "the model request never started")
        writer.close()  # the person typed on: Lab aborts the fetch
        await writer.wait_closed()
        await _wait_for(
            lambda: fake.requests[0].outcome != "pending", "the model request was never let go of"
        )
        assert fake.requests[0].outcome == "disconnected"


async def test_bad_input_and_no_model_say_what_to_fix(servers: Servers) -> None:
    server = servers.start(env={"KERNEL_SHARD_MODEL": ""})
    missing = await api(server, "POST", "/shard/api/complete", {"suffix": "x"})
    assert (missing.code, body(missing)["message"]) == (
        400,
        "prefix is required (the code before the cursor)",
    )
    cells = await api(server, "POST", "/shard/api/complete", {"prefix": "x", "cells_above": [1]})
    assert body(cells)["message"] == "cells_above must be a list of strings"
    none = await api(server, "POST", "/shard/api/complete", {"prefix": "x = "})
    assert none.code == 409
    assert body(none)["message"] == "no model is configured for completion (config.json model)"


async def test_a_newer_request_for_the_same_editor_replaces_the_older(servers: Servers) -> None:
    with FakeLLMServer([{"text": "old", "delay": 60}, {"text": "sum(xs)"}]) as fake:
        server = servers.start(env=_env(fake))
        older = asyncio.ensure_future(
            api(server, "POST", "/shard/api/complete", {**ASK, "editor": "nb-1"})
        )
        await _wait_for(lambda: len(fake.requests) == 1, "the first model request never started")
        newer = await api(server, "POST", "/shard/api/complete", {**ASK, "editor": "nb-1"})
        assert body(newer)["text"] == "sum(xs)"
        assert body(await older)["text"] == ""  # replaced: answered empty, not left hanging
        assert [r.outcome for r in fake.requests] == ["disconnected", "completed"]
        assert fake.max_in_flight == 1
