"""Subagents behind `--gateway-url`: `shard gateway` in front of jupyter-kernel-gateway, which
hosts the parent and its child. The parent kernel has no server environment to inherit, so its
subagent tools exist only because the create request carried KERNEL_SHARD_GATEWAY_URL/TOKEN;
a scripted parent launches one child (a kernel on the same kernel gateway) that fixes a file,
and the child's report reaches the parent's next request. The server token is in no file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.integration.gateway.conftest import (
    TOKEN,
    Servers,
    api,
    body,
    free_port,
    start_process,
    write_script,
)
from tests.integration.gateway.test_subagents import (
    CHILD,
    CLAIM,
    _create,
    _definition,
    _prompt,
    _session_text,
    _settled,
)

pytest.importorskip("kernel_gateway", reason="jupyter_kernel_gateway is a dev dependency")
KG_TOKEN = "kg-test-token-0d4e8b26a9f1"
SHARED = ["SHARD_HOME", "XDG_CONFIG_HOME", "IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "HOME"]
"""What the kernel gateway lets its kernels inherit: no SHARD_GATEWAY_* among them."""


async def test_a_parent_on_a_kernel_gateway_launches_a_child_whose_report_reaches_it(
    servers: Servers, workspace: Path
) -> None:
    kg_port = free_port()
    kg_argv = [
        sys.executable, "-m", "kernel_gateway",
        "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.port={kg_port}",
        "--KernelGatewayApp.port_retries=0", "--JupyterWebsocketPersonality.list_kernels=True",
        *(f"--KernelGatewayApp.env_process_whitelist={name}" for name in SHARED),
    ]  # fmt: skip
    kg_env = {**servers.env, "KG_AUTH_TOKEN": KG_TOKEN}
    assert not any(name.startswith("SHARD_GATEWAY") for name in kg_env)
    kg = start_process(kg_argv, kg_env, servers.root / "kernel-gateway.log", kg_port, KG_TOKEN)
    servers.started.append(kg)
    server = servers.start(
        "--gateway-url", f"http://127.0.0.1:{kg_port}",
        env={"JUPYTER_GATEWAY_AUTH_TOKEN": KG_TOKEN},
    )  # fmt: skip
    home = Path(server.env["SHARD_HOME"])

    (workspace / "bug_1.py").write_text("def add(a, b):\n    return a - b\n")
    (workspace / "claim.py").write_text(CLAIM)
    _definition(server.env, "fixer", write_script(workspace.parent, CHILD, "child.json"), "Rowan")
    parent_script = [
        {"tool_calls": [{"name": "subagent_launch", "input": {"task": "Fix bug_1.py.",
                                                                "agent": "fixer"}}]},
        {"text": "Launched one subagent.", "expect": {"last_tool_result_contains": "Rowan"}},
        {"text": "It reported."},
    ]  # fmt: skip
    model = write_script(workspace.parent, parent_script, "kg-parent.json")
    parent = await _create(server, workspace, model)
    remote = body(await api(kg, "GET", "/api/kernels", token=KG_TOKEN))
    assert [k["id"] for k in remote] == [parent["kernel_id"]]  # the parent lives on the gateway

    await _prompt(server, parent["kernel_id"], "fix bug_1.py with a subagent")
    (job,) = await _settled(server, parent["id"], 1, delivered=True)
    assert job["state"] == "completed", job
    (run,) = job["runs"]
    assert run["alias"] == "Rowan"
    assert "a + b" in (workspace / "bug_1.py").read_text()
    child = body(await api(server, "GET", f"/shard/api/agents/{run['agent_id']}"))
    assert child["parent_agent_id"] == parent["id"]
    assert f"of agent {parent['id']}" in _session_text(home, run["agent_id"])

    # The report reaches the parent: its next request carries it.
    await _prompt(server, parent["kernel_id"], "did it report?")
    log = _session_text(home, parent["id"])
    assert f"[subagent job {job['id']} (single, 1 run" in log  # the report's header
    assert f"I fixed the file I claimed.\\n(all of it: agent {run['agent_id']}" in log

    # The token crossed both servers in request bodies and process environments only.
    kg.stop()
    server.stop()
    files = [p for p in (*servers.root.rglob("*"), *home.rglob("*")) if p.is_file()]
    assert [p for p in files if TOKEN.encode() in p.read_bytes()] == []
