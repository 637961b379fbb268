"""Bad input to `shard acp`, written as raw lines: each gets a JSON-RPC error with a clear
message, the process keeps serving, and stdout carries nothing but protocol messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest


class RawAcp:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[bytes] = []

    async def send(self, line: bytes | str | dict[str, Any]) -> None:
        assert self.process.stdin is not None
        data = json.dumps(line) if isinstance(line, dict) else line
        raw = data.encode() if isinstance(data, str) else data
        self.process.stdin.write(raw + b"\n")
        await self.process.stdin.drain()

    async def reply(self, request_id: object = None) -> dict[str, Any]:
        """The next response with this id (notifications on the way are kept)."""
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), 120)
            assert line, "shard acp closed stdout"
            self.lines.append(line)
            message = json.loads(line)
            if "method" not in message and message.get("id") == request_id:
                return message

    async def call(self, request_id: int, method: str, params: Any) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await self.reply(request_id)


@pytest.fixture
async def raw(acp_env: dict[str, str], tmp_path: Path, agent_python: str) -> AsyncIterator[RawAcp]:
    err = (tmp_path / "stderr").open("wb")
    process = await asyncio.create_subprocess_exec(
        agent_python, "-m", "shard_kernel.cli", "acp", "--model", "scripted/demo",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err, env=acp_env,
    )  # fmt: skip
    client = RawAcp(process)
    yield client
    assert process.stdin is not None
    process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        err.close()
    assert process.stdout is not None
    rest = await process.stdout.read()
    for line in [*client.lines, *rest.splitlines(keepends=True)]:
        if line.strip():
            assert json.loads(line)["jsonrpc"] == "2.0", line  # protocol only on stdout


def _error(reply: dict[str, Any]) -> tuple[int, str]:
    assert "error" in reply, reply
    error = reply["error"]
    detail = json.dumps(error["data"]) if error.get("data") is not None else ""
    return error["code"], f"{error['message']} {detail}".strip()


async def test_every_bad_input_gets_a_clear_error_and_the_process_keeps_serving(
    raw: RawAcp, project: Path, tmp_path: Path
) -> None:
    await raw.send("{not json")
    code, message = _error(await raw.reply(None))
    assert code == -32700
    assert "not JSON" in message
    await raw.send("[1, 2]")
    code, message = _error(await raw.reply(None))
    assert code == -32600
    assert "batches" in message
    await raw.send('{"jsonrpc": "2.0", "id": 7}')
    code, message = _error(await raw.reply(7))
    assert code == -32600
    assert "needs a method" in message

    code, message = _error(
        await raw.call(1, "session/new", {"cwd": str(project), "mcpServers": []})
    )
    assert "call initialize first" in message

    init = await raw.call(2, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert init["result"]["protocolVersion"] == 1
    caps = init["result"]["agentCapabilities"]
    assert caps["loadSession"] is True
    assert caps["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": True}
    assert caps["mcpCapabilities"] == {"http": True, "sse": True}
    assert init["result"]["agentInfo"]["name"] == "shard"

    code, message = _error(await raw.call(3, "session/frobnicate", {}))
    assert code == -32601
    assert "session/frobnicate" in message

    missing = tmp_path / "nowhere"
    code, message = _error(
        await raw.call(4, "session/new", {"cwd": str(missing), "mcpServers": []})
    )
    assert code == -32602
    assert f"cwd {missing} does not exist" in message
    code, message = _error(await raw.call(5, "session/new", {"cwd": "relative", "mcpServers": []}))
    assert "absolute path" in message
    code, message = _error(await raw.call(6, "session/new", {"mcpServers": []}))
    assert code == -32602  # cwd missing: the SDK's validation names the field
    assert "cwd" in message

    prompt = {"sessionId": "sess-nope", "prompt": [{"type": "text", "text": "hi"}]}
    code, message = _error(await raw.call(8, "session/prompt", prompt))
    assert code == -32602
    assert "unknown session 'sess-nope'" in message
    code, message = _error(
        await raw.call(9, "session/set_mode", {"sessionId": "x", "modeId": "plan"})
    )
    assert "unknown session" in message
    load = {"sessionId": "no-such-session", "cwd": str(project), "mcpServers": []}
    code, message = _error(await raw.call(10, "session/load", load))
    assert "no session 'no-such-session'" in message
    await raw.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}})

    new = await raw.call(11, "session/new", {"cwd": str(project), "mcpServers": []})
    session_id = new["result"]["sessionId"]
    code, message = _error(
        await raw.call(12, "session/set_mode", {"sessionId": session_id, "modeId": "yolo"})
    )
    assert "unknown mode 'yolo'" in message
    empty = {"sessionId": session_id, "prompt": []}
    code, message = _error(await raw.call(13, "session/prompt", empty))
    assert "the prompt is empty" in message
    audio = {
        "sessionId": session_id,
        "prompt": [{"type": "audio", "data": "AA==", "mimeType": "audio/wav"}],
    }
    code, message = _error(await raw.call(14, "session/prompt", audio))
    assert "audio is not supported" in message
    image = {
        "sessionId": session_id,
        "prompt": [{"type": "image", "data": "!!", "mimeType": "image/png"}],
    }
    code, message = _error(await raw.call(15, "session/prompt", image))
    assert "not base64" in message
    huge = {
        "sessionId": session_id,
        "prompt": [{"type": "image", "data": "A" * 6_000_000, "mimeType": "image/png"}],
    }
    code, message = _error(await raw.call(30, "session/prompt", huge))
    assert code == -32602
    assert "prompt block 0: the image is 4.5 MB: at most 3.75 MB goes with a prompt" in message
    server = {"name": "x", "command": "y", "args": [], "env": []}
    twice = {"cwd": str(project), "mcpServers": [server, server]}
    code, message = _error(await raw.call(16, "session/new", twice))
    assert code == -32602
    assert "two MCP servers are named 'x'" in message
    code, message = _error(await raw.call(17, "authenticate", {"methodId": "oauth"}))
    assert "no authentication methods" in message

    # still serving: a listing works after all of that
    listed = await raw.call(18, "session/list", {"cwd": str(project)})
    assert [s["sessionId"] for s in listed["result"]["sessions"]] == [session_id]
