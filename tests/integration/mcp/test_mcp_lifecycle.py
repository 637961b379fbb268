"""Lifecycle: a server that crashes mid-call, one that never answers initialize, a streamable
HTTP server on 127.0.0.1, `${VAR}` expansion, project servers and trust, clean shutdown."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from shard_core.capabilities.mcp import McpCapability
from shard_core.sdk import Agent
from tests.fixtures.function_provider import scripted
from tests.integration.mcp.conftest import FIXTURE, Person, fixture_server, make_agent, tool_text


def _mcp(agent: Agent) -> McpCapability:
    command = agent.host.command("mcp")
    assert command is not None
    return command.handler.capability  # type: ignore[attr-defined]


async def test_a_crash_mid_call_is_a_clear_error_and_the_server_restarts(tmp_path: Path) -> None:
    calls = [("mcp__crash__die", {}), ("mcp__crash__echo", {"text": "again"})]
    person = Person(answers=["allow", "allow"])
    agent, _ = await make_agent(
        tmp_path, {"crash": fixture_server("crash")}, scripted({"tool_calls": calls}), person=person
    )
    try:
        end = await agent.run("crash it")
        server = _mcp(agent).servers["crash"]
        assert end.reason == "completed"
        died, died_error = tool_text(agent, -2)
        assert died_error
        assert "MCP server 'crash' stopped while 'die' ran" in died
        assert "exiting mid-call with status 3" in died  # its stderr, captured
        again, again_error = tool_text(agent, -1)
        assert not again_error
        assert again == "crash echoes: again"
        assert server.starts == 2
        assert server.state == "ready"
        assert any("stopped while 'die' ran" in n for n in person.notices)
    finally:
        await agent.close()
    assert server.state == "stopped"


async def test_a_server_that_never_answers_initialize_times_out(tmp_path: Path) -> None:
    hang = {**fixture_server("hang"), "startupTimeout": 2}
    agent, provider = await make_agent(tmp_path, {"hang": hang}, scripted("nothing to call"))
    try:
        mcp = _mcp(agent)
        server = mcp.servers["hang"]
        assert server.state == "crashed"
        assert server.error == "did not answer initialize within 2 s"
        assert any("did not answer initialize within 2 s" in d for d in mcp.diagnostics)
        end = await agent.run("hello")
        assert end.reason == "completed"
        assert not [t for t in provider.requests[0].tools if t.name.startswith("mcp__hang")]
        table = await agent.host.command("mcp").handler([])  # type: ignore[union-attr,misc]
        assert "| hang | user | stdio:" in table
        assert "did not answer initialize" in table
    finally:
        await agent.close()
    # The abandoned start stopped its process.
    assert not [c for c in psutil.Process().children(recursive=True) if "hang" in c.cmdline()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server() -> object:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE), "echo", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("the HTTP fixture server exited") from None
                import time

                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_streamable_http_server_with_expanded_headers(
    tmp_path: Path, http_server: str
) -> None:
    servers = {
        "web": {
            "type": "http",
            "url": "${WEB_URL}",
            "headers": {"Authorization": "Bearer ${WEB_TOKEN}"},
        }
    }
    env = {"WEB_URL": http_server, "WEB_TOKEN": "s3cr3t-token-value", "PATH": "/usr/bin:/bin"}
    person = Person(answers=["allow"])
    agent, _ = await make_agent(
        tmp_path,
        servers,
        scripted({"tool_calls": [("mcp__web__add", {"a": 2, "b": 40})]}),
        person=person,
        env=env,
    )
    try:
        await agent.run("add")
        table = await agent.host.command("mcp").handler([])  # type: ignore[union-attr,misc]
    finally:
        await agent.close()
    assert tool_text(agent) == ("42", False)
    assert "${WEB_URL}" in table
    assert "s3cr3t" not in table


async def test_a_missing_variable_is_named_and_its_server_not_started(tmp_path: Path) -> None:
    servers = {"time": {"command": "${NO_SUCH_BIN}"}}
    agent, _ = await make_agent(tmp_path, servers, scripted("hi"))
    try:
        mcp = _mcp(agent)
        assert mcp.servers["time"].state == "crashed"
        assert "command: ${NO_SUCH_BIN} is not set" in (mcp.servers["time"].error or "")
    finally:
        await agent.close()


async def test_project_servers_need_trust(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".mcp.json").write_text(json.dumps({"mcpServers": {"echo": fixture_server("echo")}}))
    agent, provider = await make_agent(tmp_path, {}, scripted("hi"), cwd=work)
    try:
        await agent.run("hi")
        assert not [t for t in provider.requests[0].tools if t.name.startswith("mcp__")]
        table = await agent.host.command("mcp").handler([])  # type: ignore[union-attr,misc]
        assert table.startswith("No MCP servers configured")
        assert "project MCP servers (echo) not started" in table
    finally:
        await agent.close()
    person = Person(confirms=[True])  # trusted, and a person approves the server once
    trusted, provider = await make_agent(
        tmp_path, {}, scripted("hi"), cwd=work, trust_project=True, agent_id="trusting",
        person=person,
    )  # fmt: skip
    try:
        await trusted.run("hi")
        assert len(person.confirmed) == 1
        assert "mcp__echo__echo" in [t.name for t in provider.requests[0].tools]
        assert _mcp(trusted).servers["echo"].config.origin == "project"
    finally:
        await trusted.close()


async def test_a_known_server_starts_lazily_from_the_catalog(tmp_path: Path) -> None:
    servers = {"echo": fixture_server("echo")}
    first, _ = await make_agent(tmp_path, servers, scripted("hi"))
    await first.close()
    person = Person(answers=["allow"])
    agent, provider = await make_agent(
        tmp_path,
        servers,
        scripted({"tool_calls": [("mcp__echo__echo", {"text": "lazy"})]}),
        person=person,
        agent_id="second",
    )
    try:
        server = _mcp(agent).servers["echo"]
        assert server.state == "stopped"  # tools known from the catalog; nothing started
        await agent.run("echo")
        assert "mcp__echo__echo" in [t.name for t in provider.requests[0].tools]
        assert tool_text(agent) == ("echo echoes: lazy", False)
        assert server.state == "ready"
        assert server.starts == 1
    finally:
        await agent.close()
    await asyncio.sleep(0)


async def test_resources_through_the_generic_tool_and_prompts_as_commands(tmp_path: Path) -> None:
    calls = [("mcp__echo__resource", {}), ("mcp__echo__resource", {"uri": "note://hello"})]
    person = Person(answers=["allow", "allow"])
    agent, provider = await make_agent(
        tmp_path, {"echo": fixture_server("echo")}, scripted({"tool_calls": calls}), person=person
    )
    try:
        await agent.run("read the notes")
        command = agent.host.command("mcp:echo:greet")
        assert command is not None
        shown = command.handler(["name=Ada"])
        shown = shown if isinstance(shown, str) else await shown
        bad = command.handler(["Ada"])
        bad = bad if isinstance(bad, str) else await bad
    finally:
        await agent.close()
    listing, listing_error = tool_text(agent, -2)
    assert not listing_error
    assert "- note://hello (hello, text/plain)" in listing
    assert tool_text(agent, -1) == ("[resource note://hello]\nhello from a resource", False)
    assert [p.tool for p in person.asked] == ["mcp__echo__resource", "mcp__echo__resource"]
    [spec] = [t for t in provider.requests[0].tools if t.name == "mcp__echo__resource"]
    assert spec.description.startswith("Resources of the MCP server 'echo'")
    assert "**user:** Please greet Ada warmly." in shown
    assert bad == "**error:** arguments are KEY=VALUE, got 'Ada'"


async def test_stopping_a_turn_during_a_slow_call_ends_it_and_the_server_still_works(
    tmp_path: Path,
) -> None:
    calls = [("mcp__crash__slow", {})]
    person = Person(answers=["allow", "allow"])
    agent, _ = await make_agent(
        tmp_path,
        {"crash": fixture_server("crash")},
        scripted(
            {"tool_calls": calls}, {"tool_calls": [("mcp__crash__echo", {"text": "on"})]}, "ok"
        ),
        person=person,
    )
    try:
        async for event in agent.prompt("be slow"):
            if event.type == "permission_resolved":  # allowed: the call is starting
                asyncio.get_running_loop().call_later(0.5, agent.abort)
            if event.type == "turn_end":
                assert event.reason == "aborted"
        text, is_error = tool_text(agent)
        assert is_error
        assert text.startswith("stopped while running")
        await agent.run("echo")
        assert tool_text(agent) == ("crash echoes: on", False)
    finally:
        await agent.close()
