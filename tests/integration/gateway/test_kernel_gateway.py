"""The remote topology: `shard gateway --gateway-url` in front of jupyter-kernel-gateway, which
hosts the agent kernels. The registry, the KERNEL_SHARD_* configuration and two WebSocket
clients (one prompts, the other answers the permission prompt) all go through both servers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.integration.gateway.conftest import (
    Servers,
    api,
    body,
    free_port,
    start_process,
    write_script,
)
from tests.integration.gateway.test_multiclient import WRITE_THEN_DONE
from tests.integration.gateway.ws_agent import WsAgent

pytest.importorskip("kernel_gateway", reason="jupyter_kernel_gateway is a dev dependency")
KG_TOKEN = "kg-test-token-51c7a9e03b6d"
SHARED = ["SHARD_HOME", "XDG_CONFIG_HOME", "IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "HOME"]
"""What the kernel gateway lets its kernels inherit: Shard state must be on a shared SHARD_HOME."""


async def test_agents_through_a_kernel_gateway(servers: Servers, workspace: Path) -> None:
    kg_port = free_port()
    kg_argv = [
        sys.executable, "-m", "kernel_gateway",
        "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.port={kg_port}",
        "--KernelGatewayApp.port_retries=0", "--JupyterWebsocketPersonality.list_kernels=True",
        *(f"--KernelGatewayApp.env_process_whitelist={name}" for name in SHARED),
    ]  # fmt: skip
    kg_env = {**servers.env, "KG_AUTH_TOKEN": KG_TOKEN}
    kg = start_process(kg_argv, kg_env, servers.root / "kernel-gateway.log", kg_port, KG_TOKEN)
    servers.started.append(kg)
    server = servers.start(
        "--gateway-url", f"http://127.0.0.1:{kg_port}",
        env={"JUPYTER_GATEWAY_AUTH_TOKEN": KG_TOKEN},
    )  # fmt: skip

    model = write_script(workspace.parent, WRITE_THEN_DONE, name="kg-script.json")
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "mode": "build", "permission_timeout": 30},
    )
    assert created.code == 201, created.body
    agent = body(created)
    assert agent["runtime_state"] == "running"
    remote = body(await api(kg, "GET", "/api/kernels", token=KG_TOKEN))
    assert [k["id"] for k in remote] == [agent["kernel_id"]]  # the kernel lives on the gateway

    a = await WsAgent.connect(server, agent["kernel_id"], "client-a")
    b = await WsAgent.connect(server, agent["kernel_id"], "client-b")
    assert a.sock.subprotocol is None  # a server relaying a kernel gateway speaks JSON only
    snapshot = await a.attach()
    assert snapshot["agent_id"] == agent["id"]  # KERNEL_SHARD_AGENT_ID crossed both servers
    await b.attach()
    msg_id = a.sock.execute("write out.txt")
    request = await b.wait_event("permission_request")
    assert (await b.answer(request["request_id"]))["ok"] is True
    assert (await a.wait_shell_reply(msg_id))["status"] == "ok"
    resolved = await a.wait_event("permission_resolved")
    assert resolved["decided_by"] == "client-b"
    assert (workspace / "out.txt").read_text() == "hi\n"
    await a.wait_event("turn_end")

    info = body(await api(server, "GET", f"/shard/api/agents/{agent['id']}"))
    assert (info["runtime_state"], info["status"], info["clients"]) == ("running", "idle", 2)
    assert info["clients_by_role"] == {"interactive": 2, "observer": 0}
    await a.aclose()
    await b.aclose()
    killed = body(await api(server, "DELETE", f"/shard/api/agents/{agent['id']}"))
    assert killed["runtime_state"] == "stopped"
    assert body(await api(kg, "GET", "/api/kernels", token=KG_TOKEN)) == []
    again = body(await api(server, "POST", f"/shard/api/agents/{agent['id']}/attach"))
    assert (again["runtime_state"], again["kernel_id"] != agent["kernel_id"]) == ("running", True)
