"""With `sandbox.kernel: "off"`, a gateway agent's workspace kernel is a kernel of the same
Jupyter server: listed in its kernels, open to a console that sees the agent's variables, without
the server's secrets in its environment, and shut down with the agent. By default it is started
inside the sandbox instead, by the agent, and is not one of the server's kernels."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

from tests.integration.gateway.conftest import Server, Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt

SECRET = "ghp_" + "x" * 36


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    pool = Servers(tmp_path)
    yield pool
    assert pool.stop_all() == []


def console_eval(connection_file: Path, code: str) -> str:
    """What a console attached to the kernel prints for `code`."""
    client = BlockingKernelClient()
    client.load_connection_file(str(connection_file))
    client.start_channels()
    out: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        if msg["msg_type"] == "execute_result":
            out.append(msg["content"]["data"]["text/plain"])
        elif msg["msg_type"] == "error":
            out.append(msg["content"]["ename"])

    try:
        client.wait_for_ready(timeout=60)
        client.execute_interactive(code, output_hook=hook, timeout=60)
    finally:
        client.stop_channels()
    return "".join(out)


async def kernels(server: Server) -> list[dict[str, Any]]:
    return body(await api(server, "GET", "/api/kernels"))


def _config(servers: Servers, sandbox: dict[str, Any]) -> None:
    config = Path(servers.env["XDG_CONFIG_HOME"]) / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"sandbox": sandbox}))


async def test_the_workspace_kernel_is_one_more_server_kernel(
    servers: Servers, tmp_path: Path
) -> None:
    _config(servers, {"kernel": "off"})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    code = "shared = 6 * 7\nimport os\nos.getcwd()"
    model = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "python_exec", "input": {"code": code}}]},
            {"expect": {"last_tool_result_contains": [str(workspace)]}, "text": "Done."},
        ],
    )
    server = servers.start(env={"GITHUB_TOKEN": SECRET})
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "permissions": {"allow": ["PythonExec"]}},
    )
    assert created.code == 201, created.body
    agent = body(created)
    events = await prompt(server, agent["kernel_id"], "compute")
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["result"]["is_error"] for r in results] == [False]
    ends = [e for e in events if e["type"] == "turn_end"]
    assert ends[-1]["reason"] == "completed"

    listed = await kernels(server)
    workspace_kernels = [k for k in listed if k["id"] != agent["kernel_id"]]
    assert [k["name"] for k in workspace_kernels] == ["python3"]
    connection = (
        Path(server.env["JUPYTER_RUNTIME_DIR"]) / f"kernel-{workspace_kernels[0]['id']}.json"
    )
    assert json.loads(connection.read_text())["kernel_name"] == "python3"
    assert console_eval(connection, "shared") == "42"
    assert console_eval(connection, "'GITHUB_TOKEN' in os.environ") == "False"

    assert (await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")).code in (200, 204)
    for _ in range(300):
        if not await kernels(server):
            break
        await asyncio.sleep(0.1)
    assert await kernels(server) == []


async def test_by_default_the_workspace_kernel_is_sandboxed_not_a_server_kernel(
    servers: Servers, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    code = "import os\nos.getppid(), os.listdir(os.environ['JUPYTER_RUNTIME_DIR'])"
    model = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "python_exec", "input": {"code": code}}]},
            {"text": "Done."},
        ],
    )
    server = servers.start()
    created = await api(
        server,
        "POST",
        "/shard/api/agents",
        {"cwd": str(workspace), "model": model, "permissions": {"allow": ["PythonExec"]}},
    )
    assert created.code == 201, created.body
    agent = body(created)
    events = await prompt(server, agent["kernel_id"], "compute")
    results = [e["result"] for e in events if e["type"] == "tool_result"]
    assert [r["is_error"] for r in results] == [False]
    # its parent is the sandbox's init; the server's runtime dir (its token) is empty there
    assert "(1, [])" in "".join(b.get("text", "") for b in results[0]["content"])
    assert [k["id"] for k in await kernels(server)] == [agent["kernel_id"]]
    assert (await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")).code in (200, 204)
