"""A person's window sets the size of the agent's server terminal, and the agent's screen model
draws at that size: with a person's 20x60 window open, the program in the terminal is told
20x60 (SIGWINCH) and what the agent reads is wrapped at 60 columns; when the person leaves, the
agent's own 32x120 is back. The terminal is listed with its agent (`AgentInfo.terminals`, what
the Lab sidebar shows) while it runs, and not after it is closed."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from tests.integration.gateway.conftest import Server, Servers, api, body, write_script
from tests.integration.gateway.ws_agent import WsAgent

WINCH = """\
import os, signal
count = 0
def show(*_):
    global count
    count += 1
    columns, rows = os.get_terminal_size()
    print(f"size#{count} {rows} {columns}", flush=True)
    print("0" * 100, flush=True)
signal.signal(signal.SIGWINCH, show)
show()
while True:
    signal.pause()
"""
"""prints the pty's size and a 100-column ruler at start and on every resize"""
OPEN = {"command": "python3 -u winch.py", "name": "sizes"}


def _wait(pattern: str) -> dict[str, Any]:
    wait = {"id": "sizes", "pattern": pattern, "timeout": 60}
    return {"tool_calls": [{"name": "terminal_wait", "input": wait}]}


STEPS = [
    {"tool_calls": [{"name": "terminal_open", "input": OPEN}]},
    _wait(r"^size#1 32 120$"),
    {"text": "opened"},
    _wait(r"^size#2 20 60$"),
    {"text": "a person's size"},
    _wait(r"^size#3 32 120$"),
    {"tool_calls": [{"name": "terminal_close", "input": {"id": "sizes"}}]},
    {"text": "my size again"},
]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    pool = Servers(tmp_path)
    yield pool
    pool.stop_all()


async def _turn(agent: WsAgent, text: str) -> list[dict[str, Any]]:
    after = len(agent.events)
    msg_id = agent.sock.execute(text)
    assert (await agent.wait_shell_reply(msg_id, within=120))["status"] == "ok"
    await agent.wait_event("turn_end", after=after, within=120)
    return [e["result"] for e in agent.events[after:] if e.get("type") == "tool_result"]


def _screen(result: dict[str, Any]) -> str:
    assert not result["is_error"], result
    return str(result["render"][0]["screen"])


async def _read_until(sock: WebSocketClientConnection, needle: str) -> str:
    seen = ""
    async with asyncio.timeout(60):
        while needle not in seen:
            message = await sock.read_message()
            assert message is not None, f"the terminal closed before {needle!r}: {seen[-500:]}"
            kind, *rest = json.loads(message)
            if kind == "stdout":
                seen += rest[0]
    return seen


async def _listed(server: Server, agent_id: str) -> list[dict[str, Any]]:
    info = await api(server, "GET", f"/shard/api/agents/{agent_id}")
    assert info.code == 200, info.body
    return list(body(info)["terminals"])


async def test_a_persons_window_sizes_the_agents_terminal_and_its_screen(
    servers: Servers, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "winch.py").write_text(WINCH)
    folder = Path(servers.env["XDG_CONFIG_HOME"]) / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"sandbox": {"mode": "off"}}))
    server = servers.start("--set", "ServerApp.terminals_enabled=True")
    allow = ["Bash(python3 -u winch.py)", "TerminalClose"]
    request = {"cwd": str(workspace), "model": write_script(tmp_path, STEPS),
               "permissions": {"allow": allow}}  # fmt: skip
    created = await api(server, "POST", "/shard/api/agents", request)
    assert created.code == 201, created.body
    agent_id = body(created)["id"]
    agent = await WsAgent.connect(server, body(created)["kernel_id"], "driver")
    person: WebSocketClientConnection | None = None
    try:
        await agent.attach()
        opened, alone = await _turn(agent, "open it")
        name = opened["details"]["server_terminal"]
        assert re.search(r"^0{100}$", _screen(alone), re.M), _screen(alone)
        assert await _listed(server, agent_id) == [
            {"name": name, "label": "sizes", "command": "python3 -u winch.py"}
        ]

        url = server.url.replace("http", "ws", 1) + f"terminals/websocket/{name}"
        headers = {"Authorization": f"token {server.token}"}
        person = await websocket_connect(HTTPRequest(url, headers=headers))
        await person.write_message(json.dumps(["set_size", 20, 60, 400, 600]))  # as Lab sends it
        await _read_until(person, "size#2 20 60")  # the program was told the person's size
        [shared] = await _turn(agent, "look again")
        screen = _screen(shared)
        assert re.search(r"^0{60}\n0{40}$", screen, re.M), f"drawn at 60 columns:\n{screen}"
        assert not re.search(r"^0{61,}$", screen, re.M)

        person.close()
        person = None
        mine, closed = await _turn(agent, "the person left")
        assert re.search(r"^size#3 32 120\n0{100}$", _screen(mine), re.M), _screen(mine)
        assert not closed["is_error"], closed
        async with asyncio.timeout(30):  # the end reaches the registry from terminado's pty
            while await _listed(server, agent_id):
                await asyncio.sleep(0.1)
    finally:
        if person is not None:
            person.close()
        await agent.aclose()
