"""Shard on Jupyter Enterprise Gateway: a real EG 3.x process (its own virtual environment, see
tests/fixtures/enterprise_gateway.py) hosts the agent kernels with its local process proxy and the
documented kernelspec; `shard gateway --gateway-url` in front of it supervises them. Two clients
attach, the second answers the first one's permission prompt, a SIGKILLed kernel is restarted by
EG and resumes with its history, and every byte of agent state lands in the server's SHARD_HOME
(sent to the remote kernel as KERNEL_SHARD_HOME), none in the kernel host's home."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from shard_kernel.gateway.client import msg_type
from tests.fixtures.enterprise_gateway import eg_command, install_example_spec
from tests.integration.gateway.conftest import (
    Server,
    Servers,
    api,
    body,
    descendants,
    free_port,
    start_process,
    write_script,
)
from tests.integration.gateway.test_wire import iopub_ready
from tests.integration.gateway.ws_agent import WsAgent

EG_TOKEN = "eg-test-token-3f9c1d7e2a6b"
INHERITED = "PATH,HOME,XDG_CONFIG_HOME,IPYTHONDIR"
"""What EG passes from its own environment to the kernels (EG passes nothing else but KERNEL_*
variables): no SHARD_HOME, so the state location must come with the request."""
SCRIPT = [
    {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "hi\n"}}]},
    {"text": "Wrote it."},
    {"text": "Still here after the crash."},
]


def start_enterprise_gateway(servers: Servers) -> Server:
    command = eg_command()
    if isinstance(command, str):
        pytest.skip(command)  # no registry to install EG from: say why
    root = servers.root
    install_example_spec(root / "eg-data" / "kernels")
    env = {k: v for k, v in servers.env.items() if k != "SHARD_HOME"}
    env.update(
        JUPYTER_PATH=str(root / "eg-data"),
        HOME=str(root / "eg-home"),
        EG_AUTH_TOKEN=EG_TOKEN,
    )
    (root / "eg-home").mkdir()
    port = free_port()
    argv = [
        str(command), "--ip=127.0.0.1", f"--port={port}", "--port_retries=0",
        "--EnterpriseGatewayApp.list_kernels=True",
        # EG refuses kernels for root by default; CI containers run as root
        "--EnterpriseGatewayApp.unauthorized_users=nobody-at-all",
        f"--EnterpriseGatewayApp.inherited_envs={INHERITED}",
    ]  # fmt: skip
    eg = start_process(argv, env, root / "enterprise-gateway.log", port, EG_TOKEN)
    servers.started.append(eg)
    return eg


def kernel_pid(eg: Server) -> int:
    pids = [
        pid
        for pid in descendants(eg.proc.pid)
        if b"shard_kernel" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert len(pids) == 1, pids
    return pids[0]


async def test_agents_on_enterprise_gateway(servers: Servers, workspace: Path) -> None:
    eg = start_enterprise_gateway(servers)
    server = servers.start(
        "--gateway-url", eg.url.rstrip("/"), env={"JUPYTER_GATEWAY_AUTH_TOKEN": EG_TOKEN}
    )
    specs = body(await api(eg, "GET", "/api/kernelspecs", token=EG_TOKEN))
    assert "LocalProcessProxy" in str(specs["kernelspecs"]["shard"]["spec"]["metadata"])

    model = write_script(workspace.parent, SCRIPT, name="eg-script.json")
    request = {"cwd": str(workspace), "model": model, "name": "on-eg", "permission_timeout": 60}
    created = await api(server, "POST", "/shard/api/agents", request)
    assert created.code == 201, created.body
    agent = body(created)
    assert agent["runtime_state"] == "running"
    on_eg = body(await api(eg, "GET", "/api/kernels", token=EG_TOKEN))
    assert [k["id"] for k in on_eg] == [agent["kernel_id"]]  # the kernel lives on EG

    a = await WsAgent.connect(server, agent["kernel_id"], "client-a")
    b = await WsAgent.connect(server, agent["kernel_id"], "client-b")
    assert (await a.attach())["agent_id"] == agent["id"]  # KERNEL_SHARD_* crossed both servers
    await b.attach()
    msg_id = a.sock.execute("write out.txt")
    request_event = await b.wait_event("permission_request")
    assert (await b.answer(request_event["request_id"]))["ok"] is True
    assert (await a.wait_shell_reply(msg_id))["status"] == "ok"
    resolved = await a.wait_event("permission_resolved")
    assert resolved["decided_by"] == "client-b"
    await a.wait_event("turn_end")
    assert (workspace / "out.txt").read_text() == "hi\n"

    home = Path(server.env["SHARD_HOME"]) / "agents" / agent["id"]
    assert (home / "events.jsonl").is_file()  # the remote kernel wrote where the server reads
    assert not (servers.root / "eg-home" / ".shard").exists()

    os.kill(kernel_pid(eg), signal.SIGKILL)

    def restarting() -> bool:
        return any(
            msg_type(m) == "status" and m["content"].get("execution_state") == "restarting"
            for m in a.messages
        )

    await a.wait_for(restarting, within=60)  # EG noticed and restarts it
    await iopub_ready(a)
    snapshot = await a.attach(since=-1)  # the new process, same socket, same kernel id
    kinds = [e["type"] for e in snapshot["events"]]
    assert "restarted" in kinds
    decided = [e for e in snapshot["events"] if e["type"] == "permission_resolved"]
    assert [e["decided_by"] for e in decided] == ["client-b"]  # the history is intact
    after = len(a.events)
    again = a.sock.execute("are you still there?")
    assert (await a.wait_shell_reply(again))["status"] == "ok"
    await a.wait_event("turn_end", after=after)
    texts = [
        block.get("text")
        for e in a.events[after:]
        if e["type"] == "message_complete"
        for block in e["message"]["content"]
    ]
    assert "Still here after the crash." in texts

    info = body(await api(server, "GET", f"/shard/api/agents/{agent['id']}"))
    assert (info["runtime_state"], info["kernel_id"]) == ("running", agent["kernel_id"])
    await a.aclose()
    await b.aclose()
    killed = body(await api(server, "DELETE", f"/shard/api/agents/{agent['id']}"))
    assert killed["runtime_state"] == "stopped"
    assert body(await api(eg, "GET", "/api/kernels", token=EG_TOKEN)) == []
