"""A server that makes the terminal but cannot be attached to, one that refuses, and one that
is not there: each `terminal_open` is a clear error, nothing is left on the server, and the
agent carries on (a local tornado server speaking the gateway's and terminado's routes)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from tornado.httpserver import HTTPServer

from shard_core.capabilities.terminals.registry import Terminals
from shard_core.capabilities.terminals.server import TerminalServer
from shard_core.capabilities.terminals.terminal import Terminal
from shard_core.contracts import ToolContext
from shard_core.tools.sandbox import Sandbox, SandboxPolicy
from tests.fixtures.ports import free_port

FOREIGN = "no terminals for an agent this server cannot see (another machine or pid namespace)"


class _Create(tornado.web.RequestHandler):
    def post(self) -> None:
        seen: dict[str, Any] = self.settings["seen"]
        body = json.loads(self.request.body)
        seen["created"].append(body["name"])
        refuse = self.settings["refuse"]
        if refuse:
            self.set_status(409 if refuse == "foreign" else 500)
            self.finish({"message": FOREIGN if refuse == "foreign" else "the manager is broken"})
            return
        self.set_status(201)
        self.finish({"name": body["name"], "pid": os.getpid()})


class _Delete(tornado.web.RequestHandler):
    def delete(self, name: str) -> None:
        self.settings["seen"]["deleted"].append(name)
        self.set_status(204)


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    seen: dict[str, Any] = {"created": [], "deleted": []}
    app = tornado.web.Application(
        [(r"/shard/api/terminals", _Create), (r"/api/terminals/(\w+)", _Delete)],
        seen=seen, refuse=getattr(request, "param", False),
    )  # fmt: skip
    port = free_port()
    http = HTTPServer(app)
    http.listen(port, "127.0.0.1")
    yield f"http://127.0.0.1:{port}/", seen
    http.stop()
    await http.close_all_connections()


def _ctx(tmp_path: Path) -> ToolContext:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    return ToolContext(cwd=tmp_path, roots=[tmp_path], agent_id="agent-e", session_id="s",
                       call_id="c", env=env)  # fmt: skip


async def _open(url: str, tmp_path: Path) -> tuple[Terminals, object]:
    terminals = Terminals(Sandbox(SandboxPolicy(mode="off")), TerminalServer(url, "tok"))
    return await _open_in(terminals, tmp_path)


async def _open_in(terminals: Terminals, tmp_path: Path) -> tuple[Terminals, object]:
    return terminals, await terminals.open({"command": "cat"}, _ctx(tmp_path))


async def test_a_terminal_that_cannot_be_attached_is_an_error_and_is_deleted(
    server: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    url, seen = server
    terminals, opened = await _open(url, tmp_path)
    try:
        assert isinstance(opened, str)
        assert opened.startswith("cannot start cat: cannot attach to the server's terminal")
        assert seen["deleted"] == seen["created"], "what the server made is deleted again"
        assert terminals.by_id == {}
    finally:
        await terminals.close_all()


@pytest.mark.parametrize("server", ["broken"], indirect=True)
async def test_a_refusal_says_the_servers_reason(
    server: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    url, _ = server
    terminals, opened = await _open(url, tmp_path)
    await terminals.close_all()
    assert opened == "cannot start cat: the manager is broken"


@pytest.mark.parametrize("server", ["foreign"], indirect=True)
async def test_a_server_that_cannot_see_the_agent_leaves_it_a_pty(
    server: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    url, seen = server
    terminals, opened = await _open(url, tmp_path)
    try:
        assert isinstance(opened, Terminal), opened
        assert opened.server_name is None, "the kernel's own pty"
        assert terminals.server is not None
        assert "cannot see" in terminals.server.disabled
        _again, second = await _open_in(terminals, tmp_path)
        assert isinstance(second, Terminal)
        assert len(seen["created"]) == 1, "asked once, then the server is not asked again"
    finally:
        await terminals.close_all()


async def test_a_server_that_is_gone_is_out_of_reach(tmp_path: Path) -> None:
    terminals, opened = await _open(f"http://127.0.0.1:{free_port()}/", tmp_path)
    await terminals.close_all()
    assert isinstance(opened, str)
    assert opened.startswith("cannot start cat: the Jupyter server is out of reach")
