"""Under a real jupyter_server with terminals, the agent's terminal is one of the server's: it is
listed by `/api/terminals`, a person typing through `/terminals/websocket/NAME` (as Lab does) is
seen by `terminal_read` and sees what the agent types, the agent's lines still pass the gate
and its shell runs in the sandbox, and the terminal dies with the agent kernel (SIGKILL, no
disposer). A server without terminals (`shard gateway`'s default) leaves the kernel its pty."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from tests.integration.gateway.conftest import (
    Server,
    Servers,
    alive,
    api,
    body,
    descendants,
    write_script,
)
from tests.integration.gateway.ws_agent import WsAgent

BWRAP = shutil.which("bwrap") is not None
OPEN = {"command": "bash --norc -i", "name": "shared"}
BOMB = r"printf '\033[%05000dmafter-bomb\n' 1; sleep 100"
"""5,000 digits in a colour: pyte's int() raises past Python's 4,300-digit limit"""
ALLOW = ["Bash(bash --norc -i)", "Bash(export:*)", "Bash(echo:*)", "Bash(head:*)",
         "Bash(sleep:*)", "Bash(printf:*)", "TerminalClose"]  # fmt: skip


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    pool = Servers(tmp_path)
    yield pool
    pool.stop_all()


def _sandbox(servers: Servers, mode: str) -> None:
    folder = Path(servers.env["XDG_CONFIG_HOME"]) / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"sandbox": {"mode": mode}}))


async def _agent(server: Server, workspace: Path, script: str) -> dict[str, Any]:
    request = {"cwd": str(workspace), "model": script, "permissions": {"allow": ALLOW}}
    created = await api(server, "POST", "/shard/api/agents", request)
    assert created.code == 201, created.body
    return body(created)


async def _turn(agent: WsAgent, text: str, deny: str | None = None) -> list[dict[str, Any]]:
    """One prompt; the tool results of its turn. `deny`: the line the gate asks about, which
    this client refuses (unanswered, the ask would hold the turn for the 60 s timeout)."""
    after = len(agent.events)
    msg_id = agent.sock.execute(text)
    if deny is not None:
        ask = await agent.wait_event("permission_request", after=after, within=120)
        assert (ask["tool"], ask["input"].get("text")) == ("terminal_send", deny), ask
        await agent.answer(ask["request_id"], "deny")
    assert (await agent.wait_shell_reply(msg_id, within=120))["status"] == "ok"
    await agent.wait_event("turn_end", after=after, within=120)
    return [e["result"] for e in agent.events[after:] if e.get("type") == "tool_result"]


def _failed(result: dict[str, Any]) -> bool:
    return bool(result["is_error"])


def _text(result: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in result["content"])


async def _person(server: Server, name: str) -> WebSocketClientConnection:
    url = server.url.replace("http", "ws", 1) + f"terminals/websocket/{name}"
    headers = {"Authorization": f"token {server.token}"}
    return await websocket_connect(HTTPRequest(url, headers=headers))


async def _read_until(sock: WebSocketClientConnection, needle: str, within: float = 60) -> str:
    """What the person's socket shows until `needle` (a regular expression) appears."""
    seen = ""
    async with asyncio.timeout(within):
        while not re.search(needle, seen):
            message = await sock.read_message()
            assert message is not None, f"the terminal closed before {needle!r}: {seen[-500:]}"
            kind, *rest = json.loads(message)
            if kind == "stdout":
                seen += rest[0]
    return seen


async def _terminal_names(server: Server) -> list[str]:
    listed = await api(server, "GET", "/api/terminals")
    assert listed.code == 200, listed.body
    return [t["name"] for t in body(listed)]


@pytest.mark.parametrize("sandbox", ["off", pytest.param("required", marks=pytest.mark.skipif(
    not BWRAP, reason="bubblewrap is not installed"))])  # fmt: skip
async def test_the_agents_terminal_is_the_servers_and_a_person_shares_it(
    servers: Servers, tmp_path: Path, sandbox: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = write_script(tmp_path, [
        {"tool_calls": [{"name": "terminal_open", "input": OPEN}]},
        {"tool_calls": [{"name": "terminal_send",
                         "input": {"id": "shared", "text": "export PS1='READY> '"}}]},
        {"tool_calls": [{"name": "terminal_wait",
                         "input": {"id": "shared", "pattern": "READY> $", "timeout": 60}}]},
        {"text": "opened"},
        {"tool_calls": [{"name": "terminal_read", "input": {"id": "shared"}}]},
        {"tool_calls": [{"name": "terminal_send",
                         "input": {"id": "shared", "text": "echo agent-$((7*6))"}}]},
        {"tool_calls": [{"name": "terminal_send",
                         "input": {"id": "shared", "text": "rm -rf /never"}}]},
        {"text": "read"},
        {"tool_calls": [{"name": "terminal_open",
                         "input": {"command": "head -c 2000000 /dev/urandom", "name": "flood"}}]},
        {"tool_calls": [{"name": "terminal_wait", "input": {"id": "flood", "timeout": 120}}]},
        {"tool_calls": [{"name": "terminal_open", "input": {"command": BOMB, "name": "bomb"}}]},
        {"tool_calls": [{"name": "terminal_wait",
                         "input": {"id": "bomb", "pattern": "after-bomb", "timeout": 60}}]},
        {"tool_calls": [{"name": "terminal_close", "input": {"id": "bomb"}}]},
        {"tool_calls": [{"name": "terminal_open",
                         "input": {"command": "sleep 100", "name": "sleeper"}}]},
        {"tool_calls": [{"name": "terminal_close", "input": {"id": "sleeper"}}]},
        {"tool_calls": [{"name": "terminal_read", "input": {"id": "sleeper"}}]},
        {"text": "flooded"},
    ])  # fmt: skip
    _sandbox(servers, sandbox)
    server = servers.start("--set", "ServerApp.terminals_enabled=True")
    created = await _agent(server, workspace, script)
    agent = await WsAgent.connect(server, created["kernel_id"], "driver")
    person: WebSocketClientConnection | None = None
    try:
        await agent.attach()
        opened, _sent, ready = await _turn(agent, "open a terminal")
        assert not _failed(opened), opened
        assert "matched" in _text(ready), _text(ready)
        name = opened["details"]["server_terminal"]
        assert opened["details"]["sandbox"] == ("bwrap" if sandbox == "required" else "off")
        assert name in await _terminal_names(server), "listed as the server's (Lab's Running panel)"
        foreign = {"name": "shard_foreign", "cwd": str(workspace), "argv": ["bash"], "env": {},
                   "owner": {"pid": 1, "start": 2**40},  # never its start time
                   "status_file": str(tmp_path / "x.exit")}  # fmt: skip
        refused = await api(server, "POST", "/shard/api/terminals", foreign)
        assert refused.code == 409, "an owner the tether cannot watch gets no server terminal"
        assert "cannot see" in body(refused)["message"]
        card = ready["render"][0]
        assert (card["kind"], card["server_terminal"]) == ("terminal", name), "Open in Lab's"
        assert "READY>" in card["screen"]

        person = await _person(server, name)
        check = "echo found-$(env | grep -c -i -e token -e jpy -e jupyter)-vars\r"
        await person.write_message(json.dumps(["stdin", check]))
        seen = await _read_until(person, r"found-\d+-vars")
        assert "found-0-vars" in seen, "the shell has the agent's environment, not the server's"
        await person.write_message(json.dumps(["stdin", "echo person-$((6*7))\r"]))
        await _read_until(person, "person-42")
        read, sent, refused = await _turn(agent, "read it", deny="rm -rf /never")
        assert "echo person-$((6*7))" in _text(read), _text(read)
        assert "person-42" in _text(read)
        assert not _failed(sent), _text(sent)
        await _read_until(person, "agent-42")
        assert _failed(refused), "an unruled line is refused by the gate, not typed"
        assert "rm -rf" not in "".join(_text(r) for r in (read, sent))

        turn = await _turn(agent, "flood one, close one")
        _flood, flooded, _bomb, bombed, _closed, sleeper, closed, gone = turn
        assert "the process ended (exit 0)" in _text(flooded), _text(flooded)[:300]
        assert "earlier characters of output were dropped" in _text(flooded)
        assert len(_text(flooded)) < 200_000, "a binary flood through the server is capped too"
        assert "matched 'after-bomb'" in _text(bombed), _text(bombed)[-300:]  # read on
        assert "closed" in _text(closed), _text(closed)
        assert sleeper["details"]["server_terminal"] not in await _terminal_names(server)
        assert _failed(gone), "a closed terminal is a clear error"
        assert "no terminal 'sleeper'" in _text(gone)
        assert name in await _terminal_names(server), "the shared terminal and server carry on"

        tether = opened["details"]["pid"]
        shell = descendants(tether)
        assert shell, "the tether started the shell"
        owner = int(Path(f"/proc/{tether}/cmdline").read_bytes().split(b"\0")[2])
        assert owner in server.kernels(), "the owner the tether watches is the agent kernel"
        os.kill(owner, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (
            any(alive(p) for p in [tether, *shell]) or name in await _terminal_names(server)
        ):
            await asyncio.sleep(0.2)
        left = [p for p in [tether, *shell] if alive(p)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == [], "the terminal's processes died with the agent kernel"
        assert name not in await _terminal_names(server)
    finally:
        if person is not None:
            person.close()
        await agent.aclose()


async def test_a_server_without_terminals_leaves_the_kernel_its_own_pty(
    servers: Servers, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = write_script(tmp_path, [
        {"tool_calls": [{"name": "terminal_open", "input": OPEN}]},
        {"tool_calls": [{"name": "terminal_send",
                         "input": {"id": "shared", "text": "echo pty-$((6*7))"}}]},
        {"tool_calls": [{"name": "terminal_wait",
                         "input": {"id": "shared", "pattern": "^pty-42", "timeout": 60}}]},
        {"text": "done"},
    ])  # fmt: skip
    _sandbox(servers, "off")
    server = servers.start()
    created = await _agent(server, workspace, script)
    agent = await WsAgent.connect(server, created["kernel_id"], "driver")
    try:
        await agent.attach()
        opened, _sent, waited = await _turn(agent, "open a terminal")
        assert not _failed(opened), _text(opened)
        assert "server_terminal" not in opened["details"]
        assert "matched" in _text(waited), _text(waited)
        assert (await api(server, "GET", "/api/terminals")).code == 404
    finally:
        await agent.aclose()
