"""`shard acp --gateway URL`: each ACP session is a gateway agent, the same live agent the Lab
panel and other tabs see. Driven by the ACP SDK's client against a real `shard gateway`."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest
from acp.exceptions import RequestError
from acp.schema import (
    ImageContentBlock,
    McpServerStdio,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script
from tests.integration.gateway.conftest import TOKEN, Server, Servers, api, body
from tests.integration.gateway.ws_agent import WsAgent

pytestmark = pytest.mark.timeout(300)

EDIT = {"name": "edit", "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}


@pytest.fixture
def gateway(tmp_path: Path) -> Any:
    pool = Servers(tmp_path / "gw")
    yield pool
    pool.stop_all()


def _env(server: Server, acp_env: dict[str, str]) -> dict[str, str]:
    env = dict(acp_env)
    env.pop("SHARD_GATEWAY_URL", None)
    env.pop("SHARD_GATEWAY_TOKEN", None)
    return env


async def _agents(server: Server) -> list[dict[str, Any]]:
    return body(await api(server, "GET", "/shard/api/agents"))["agents"]


async def test_a_session_is_a_gateway_agent_streamed_and_asked_through_the_host(
    gateway: Servers, project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    server = gateway.start()
    model = write_script(tmp_path, [
        {"text": "Fixing add.", "tool_calls": [EDIT]},
        {"text": "Fixed it."},
    ])  # fmt: skip
    host = AcpHost(answer="allow_once")
    args = ("--gateway", server.url, "--token", TOKEN, "--model", model)
    async with acp_agent(host, _env(server, acp_env), *args, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert new.session_id.startswith("agent-")
        [listed] = [a for a in await _agents(server) if a["id"] == new.session_id]
        assert listed["cwd"] == str(project)
        for _ in range(100):  # this ACP session is one of its clients (the kernel says so)
            [listed] = [a for a in await _agents(server) if a["id"] == new.session_id]
            if listed["clients"] >= 1:
                break
            await asyncio.sleep(0.1)
        assert listed["clients_by_role"]["interactive"] >= 1
        [commands] = host.of("available_commands_update")
        names = {c.name for c in commands.available_commands}
        assert {"status", "compact", "recall"} <= names
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix"))
        assert response.stop_reason == "end_turn"
        listed_sessions = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed_sessions.sessions] == [new.session_id]
    assert "Fixing add." in host.text()
    assert "Fixed it." in host.text()
    [ask] = host.asks
    kinds = ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert [o.kind for o in ask.options] == kinds
    diffs = [c for c in ask.tool_call.content or [] if c.type == "diff"]
    assert diffs
    assert "a + b" in diffs[0].new_text
    [call] = host.of("tool_call")
    assert call.kind == "edit"  # the kind the gateway agent's tool declares, from its event
    finals = [u.status for u in host.of("tool_call_update") if u.status in ("completed", "failed")]
    assert finals == ["completed"]
    assert "a + b" in (project / "calc.py").read_text()
    # the agent lives on in the gateway after the ACP host left
    assert any(a["id"] == new.session_id for a in await _agents(server))


class SlowHost(AcpHost):
    """A host whose person has not answered yet: the question waits until `release`."""

    def __init__(self) -> None:
        super().__init__(answer="reject_once")
        self.release = asyncio.Event()
        self.asked = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.set()
        await self.release.wait()
        return await super().request_permission(session_id, tool_call, options, **kwargs)


async def test_another_tab_on_the_same_agent_answers_first_and_load_replays(
    gateway: Servers, project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    server = gateway.start()
    model = write_script(tmp_path, [
        {"text": "Fixing add.", "tool_calls": [EDIT]},
        {"text": "Fixed it."},
    ])  # fmt: skip
    host = SlowHost()
    args = ("--gateway", server.url, "--token", TOKEN, "--model", model)
    env = _env(server, acp_env)
    async with acp_agent(host, env, *args, stderr=tmp_path / "stderr") as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        [info] = [a for a in await _agents(server) if a["id"] == new.session_id]
        tab = await WsAgent.connect(server, info["kernel_id"], "lab-tab")
        try:
            await tab.attach()
            turn = asyncio.ensure_future(
                conn.prompt(session_id=new.session_id, prompt=text_prompt("fix"))
            )
            await asyncio.wait_for(host.asked.wait(), 120)
            request = await tab.wait_event("permission_request")
            await tab.answer(request["request_id"], "allow")  # the tab answers first
            resolved = await tab.wait_event("permission_resolved")
            response = await asyncio.wait_for(turn, 120)
            host.release.set()  # the host's late "reject" changes nothing
            await asyncio.sleep(0.5)
        finally:
            await tab.aclose()
        assert response.stop_reason == "end_turn"
        assert "a + b" in (project / "calc.py").read_text()
        assert resolved["decided_by"] == "lab-tab"
        assert resolved["source"] == "client"
    # a fresh shard acp process loads the session: the agent's history is replayed
    second = AcpHost()
    async with acp_agent(second, env, *args, stderr=tmp_path / "stderr") as (conn, _p, _i):
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
        kinds = [u.session_update for _, u in second.updates]
        assert kinds[0] == "user_message_chunk"
        assert second.updates[0][1].content.text == "fix"
        assert "Fixed it." in second.text()
        assert [u.status for u in second.of("tool_call_update")][-1] == "completed"
        with pytest.raises(RequestError) as refused:
            await conn.load_session(cwd=str(project), session_id="agent-nope", mcp_servers=[])
        assert "no gateway agent 'agent-nope'" in str(refused.value.data)


async def test_reject_always_is_the_gateway_agents_own_deny_rule(
    gateway: Servers, project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    server = gateway.start()
    again = {
        "name": "edit",
        "input": {"path": "calc.py", "old_string": "a * b", "new_string": "b * a"},
    }
    model = write_script(tmp_path, [
        {"text": "Fixing add.", "tool_calls": [EDIT]},
        {"text": "Trying again.", "tool_calls": [again]},
        {"text": "Done."},
    ])  # fmt: skip
    host = AcpHost(answer="reject_always")
    args = ("--gateway", server.url, "--token", TOKEN, "--model", model)
    async with acp_agent(host, _env(server, acp_env), *args, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("fix"))
        denied = host.asks[0].options[3].name.removeprefix("Always deny ")
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("/deny"))
    assert len(host.asks) == 1  # the saved deny rule decided the second call, unasked
    assert f"`{denied}`" in host.text()  # /deny lists it
    [own] = Path(server.env["SHARD_HOME"]).rglob("agents/*/rules.json")
    assert denied in own.read_text()
    assert "a - b" in (project / "calc.py").read_text()


async def test_the_hosts_mcp_server_is_added_to_the_gateway_agent(
    gateway: Servers, project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    server = gateway.start()
    call = {"name": "mcp__time__get_current_time", "input": {"timezone": "UTC"}}
    model = write_script(tmp_path, [{"text": "Time?", "tool_calls": [call]}, {"text": "Done."}])
    host = AcpHost(answer="allow_once")
    time_server = McpServerStdio(
        name="time", command=str(Path(sys.executable).parent / "mcp-server-time"), args=[], env=[]
    )
    args = ("--gateway", server.url, "--token", TOKEN, "--model", model)
    async with acp_agent(host, _env(server, acp_env), *args, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[time_server])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("time"))
    assert response.stop_reason == "end_turn"
    assert [a.tool_call.title for a in host.asks] == ["mcp__time__get_current_time"]
    [final] = [u for u in host.of("tool_call_update") if u.status in ("completed", "failed")]
    assert final.status == "completed", final
    assert "UTC" in final.content[-1].content.text


async def test_an_unreachable_gateway_is_a_clear_error_and_auto_falls_back(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    host = AcpHost()
    dead = "http://127.0.0.1:9/"
    async with acp_agent(host, acp_env, "--gateway", dead, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=str(project), mcp_servers=[])
        assert f"the gateway {dead} cannot be used" in str(refused.value.data)
    env = {**acp_env, "SHARD_GATEWAY_URL": dead}
    async with acp_agent(host, env, "--gateway", "auto", stderr=tmp_path / "stderr2") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert not new.session_id.startswith("agent-")  # a session of this process
    assert "sessions run" in (tmp_path / "stderr2").read_text()


async def test_a_gateway_sessions_prompt_carries_its_image(
    gateway: Servers, project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    """Images go with a gateway agent's prompt (the `prompt` command's `images`), kept in its
    log as a blob reference; nine are refused with the agent protocol's reason."""
    server = gateway.start()
    model = write_script(tmp_path, [{"text": "One pixel."}])
    pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    pixel += "AAAABJRU5ErkJggg=="
    image = ImageContentBlock(type="image", data=pixel, mime_type="image/png")
    host = AcpHost()
    args = ("--gateway", server.url, "--token", TOKEN, "--model", model)
    async with acp_agent(host, _env(server, acp_env), *args, stderr=tmp_path / "stderr") as (
        conn, _p, _i,
    ):  # fmt: skip
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id=new.session_id, prompt=[*text_prompt("x"), *[image] * 9])
        assert "9 images: at most 8 go with a prompt" in str(refused.value.data)
        prompt = [*text_prompt("what is this?"), image]
        response = await conn.prompt(session_id=new.session_id, prompt=prompt)
    assert response.stop_reason == "end_turn"
    assert "One pixel." in host.text()
    [log] = list(tmp_path.rglob(f"agents/{new.session_id}/sessions/*.jsonl"))
    digest = hashlib.sha256(pixel.encode()).hexdigest()
    assert f"blob:sha256:{digest}" in log.read_text()
    assert (log.parent / "blobs" / digest).read_text() == pixel
