"""A real `shard` kernel with a project `.mcp.json` (trusted): the model's MCP call is asked
about with the tool's full description, answered by a client, run against mcp-server-time;
`/mcp` in a cell lists the server and its tools."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from shard_core.capabilities.mcp import parse_server
from shard_core.capabilities.mcp.approvals import Approvals
from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel

BIN = Path(sys.executable).parent


def _reply(kc: Any, msg_id: str, timeout: float = 120) -> dict[str, Any]:
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply["content"]


def _plant(workspace: Path, servers: dict[str, Any]) -> None:
    """The project's `.mcp.json`, approved by a person as it is (`shard mcp approve`): a trusted
    kernel starts it without asking."""
    (workspace / ".mcp.json").write_text(json.dumps(servers))
    approvals = Approvals(Path(os.environ["SHARD_HOME"]), workspace)
    for name, raw in servers["mcpServers"].items():
        config = parse_server(name, raw, "project")
        assert config is not None
        approvals.approve_server(config)


def _text(client: AgentClient) -> str:
    parts: list[str] = []
    for msg in client.outputs:
        content = msg["content"]
        parts.append(content.get("text", ""))
        data = content.get("data", {})
        parts.extend(str(data.get(k, "")) for k in ("text/markdown", "text/plain"))
    return "\n".join(parts)


def test_a_kernel_calls_a_project_mcp_server_through_the_gate(
    start_kernel: StartKernel, workspace: Path
) -> None:
    servers = {"mcpServers": {"time": {"command": str(BIN / "mcp-server-time"), "args": []}}}
    _plant(workspace, servers)
    call = {"name": "mcp__time__get_current_time", "input": {"timezone": "Asia/Tokyo"}}
    _km, kc = start_kernel([{"tool_calls": [call]}, {"text": "It is late in Tokyo."}],
                           trust_project="1")  # fmt: skip
    client = AgentClient(kc, "client-a")
    client.attach()
    msg_id = kc.execute("what time is it in Tokyo?")
    request = client.wait_event("permission_request", timeout=120)
    assert request["tool"] == "mcp__time__get_current_time"
    shown = "\n".join(d.get("text", "") + d.get("label", "") for d in request["preview"])
    assert "Get current time in a specific timezone" in shown
    assert "of server 'time' (project config" in shown
    answer = {"type": "permission_response", "request_id": request["request_id"]}
    assert client.command({**answer, "decision": "allow", "client_id": "client-a"})["ok"]
    assert _reply(kc, msg_id)["status"] == "ok"
    result = client.wait_event("tool_result")
    assert result["name"] == "mcp__time__get_current_time"
    assert not result["result"]["is_error"]
    assert '"timezone": "Asia/Tokyo"' in result["result"]["content"][0]["text"]

    msg_id = kc.execute("/mcp")
    assert _reply(kc, msg_id)["status"] == "ok"
    client.pump(0.5)
    table = _text(client)
    assert "| time | project | stdio:" in table
    assert "mcp__time__convert_time" in table


def _children_running(pid: int, name: str) -> list[int]:
    import psutil

    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [c.pid for c in children if name in " ".join(c.cmdline())]


def test_a_killed_kernel_leaves_no_mcp_server_behind(
    start_kernel: StartKernel, workspace: Path
) -> None:
    import time

    from tests.fixtures.processes import process_alive

    servers = {"mcpServers": {"time": {"command": str(BIN / "mcp-server-time")}}}
    _plant(workspace, servers)
    km, kc = start_kernel([{"text": "hi"}], trust_project="1")
    msg_id = kc.execute("/mcp")  # the agent (and its server) exist once a cell ran
    assert _reply(kc, msg_id)["status"] == "ok"
    kernel_pid = km.provisioner.process.pid  # type: ignore[union-attr]
    [server] = _children_running(kernel_pid, "mcp-server-time")
    os.kill(kernel_pid, signal.SIGKILL)  # no disposer runs: the server sees its stdin close
    for _ in range(300):
        if not process_alive(server):
            break
        time.sleep(0.1)
    assert not process_alive(server)
