"""Notebook sessions' `shard` kernels become registry agents (`POST /api/sessions`, what
JupyterLab's Launcher and opening a notebook do): listed, attached, killed, resumed after a
server restart, and reopened as the same agent; other kernels are left alone."""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.integration.gateway.conftest import (
    Server,
    Servers,
    api,
    body,
    free_port,
    start_process,
    write_script,
)
from tests.integration.gateway.test_registry import prompt, texts

TWO_TURNS = [{"text": "First answer."}, {"text": "Second answer."}]


def project(root: Path, servers: Servers) -> None:
    """Two folders with a notebook of the same name each, and a scripted default model."""
    for folder in ("proj", "other"):
        (root / folder).mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), root / folder / "analysis.ipynb")
    config = Path(servers.env["XDG_CONFIG_HOME"]) / "shard" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"model": write_script(root.parent, TWO_TURNS)}))


async def open_notebook(server: Server, path: str, kernel: str = "shard") -> dict[str, Any]:
    """What JupyterLab 4 sends when it opens a notebook (or the Launcher makes one): a session
    at a placeholder path in the notebook's folder, named after the notebook, then moved to the
    notebook's path (@jupyterlab/apputils SessionContext._startSession)."""
    folder, _, name = path.rpartition("/")
    placeholder = f"{folder}/{uuid.uuid4()}" if folder else str(uuid.uuid4())
    request = {"path": placeholder, "name": name, "type": "notebook", "kernel": {"name": kernel}}
    response = await api(server, "POST", "/api/sessions", request)
    assert response.code == 201, response.body
    session = body(response)
    moved = await api(server, "PATCH", f"/api/sessions/{session['id']}", {"path": path})
    assert moved.code == 200, moved.body
    return body(moved)


async def agents(server: Server) -> list[dict[str, Any]]:
    return body(await api(server, "GET", "/shard/api/agents"))["agents"]


async def resumed_in_log(server: Server, agent_id: str, times: int) -> list[str]:
    """The agent's event types once its log says it resumed `times` times (a kernel logs
    `restarted` when it starts on a session that already has messages)."""
    deadline = time.monotonic() + 30
    while True:
        history = body(await api(server, "GET", f"/shard/api/agents/{agent_id}/events?since=-1"))
        kinds = [e["type"] for e in history["events"]]
        if kinds.count("restarted") >= times:
            return kinds
        assert time.monotonic() < deadline, f"resumed fewer than {times} times: {kinds}"
        await asyncio.sleep(0.1)


def summary(agent: dict[str, Any]) -> tuple[Any, ...]:
    return (agent["name"], agent["notebook"], agent["cwd"], agent["runtime_state"])


async def test_a_notebook_kernel_is_an_agent_that_survives_a_server_restart(
    servers: Servers, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    project(root, servers)
    server = servers.start("--set", f"ServerApp.root_dir={root}")

    session = await open_notebook(server, "proj/analysis.ipynb")
    kernel_id = session["kernel"]["id"]
    [agent] = await agents(server)
    assert summary(agent) == ("analysis", "proj/analysis.ipynb", str(root / "proj"), "running")
    assert agent["kernel_id"] == kernel_id
    manifest = Path(server.env["SHARD_HOME"]) / "agents" / agent["id"] / "manifest.json"
    assert json.loads(manifest.read_text())["notebook"] == "proj/analysis.ipynb"
    assert "First answer." in texts(await prompt(server, kernel_id, "hello"))

    attached = body(await api(server, "POST", f"/shard/api/agents/{agent['id']}/attach"))
    assert attached["kernel_id"] == kernel_id  # the notebook's kernel, not a second one
    restart = await api(server, "POST", f"/api/kernels/{kernel_id}/restart")
    assert restart.code == 200, restart.body
    [again] = await agents(server)  # a restarted kernel is the same agent, not a new one
    assert (again["id"], again["kernel_id"], again["runtime_state"]) == (
        agent["id"],
        kernel_id,
        "running",
    )
    await resumed_in_log(server, agent["id"], times=1)  # the new process resumed its session

    killed = await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    assert (body(killed)["runtime_state"], body(killed)["kernel_id"]) == ("stopped", None)
    kernels = body(await api(server, "GET", "/api/kernels"))
    assert kernel_id not in [k["id"] for k in kernels]
    assert server.stop() == []

    later = servers.start("--set", f"ServerApp.root_dir={root}")
    [listed] = await agents(later)
    assert (listed["id"], *summary(listed)) == (
        agent["id"],
        "analysis",
        "proj/analysis.ipynb",
        str(root / "proj"),
        "stopped",
    )
    resumed = body(await api(later, "POST", f"/shard/api/agents/{agent['id']}/attach"))
    assert resumed["runtime_state"] == "running"
    assert "Second answer." in texts(await prompt(later, resumed["kernel_id"], "and again"))
    kinds = await resumed_in_log(later, agent["id"], times=2)
    assert kinds.count("turn_start") == 2
    assert len(await agents(later)) == 1  # the registry's own start was not adopted again


async def test_sessions_reopen_their_agent_and_only_shard_kernels_are_adopted(
    servers: Servers, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    project(root, servers)
    server = servers.start("--set", f"ServerApp.root_dir={root}")

    first = await open_notebook(server, "proj/analysis.ipynb")
    second = await open_notebook(server, "other/analysis.ipynb")
    await open_notebook(server, "proj/plain.ipynb", kernel="python3")
    listed = await agents(server)
    assert [summary(a) for a in listed] == [
        ("analysis", "proj/analysis.ipynb", str(root / "proj"), "running"),
        ("analysis-2", "other/analysis.ipynb", str(root / "other"), "running"),
    ]
    assert [a["kernel_id"] for a in listed] == [first["kernel"]["id"], second["kernel"]["id"]]

    second_agent = listed[1]["id"]
    closed = await api(server, "DELETE", f"/api/sessions/{second['id']}")
    assert closed.code == 204
    listed = await agents(server)
    assert [(a["name"], a["runtime_state"]) for a in listed] == [
        ("analysis", "running"),
        ("analysis-2", "stopped"),
    ]

    reopened = await open_notebook(server, "other/analysis.ipynb")
    listed = await agents(server)
    assert [(a["id"], a["runtime_state"], a["kernel_id"]) for a in listed] == [
        (listed[0]["id"], "running", first["kernel"]["id"]),
        (second_agent, "running", reopened["kernel"]["id"]),  # the same agent, resumed
    ]
    assert len(list((Path(server.env["SHARD_HOME"]) / "agents").iterdir())) == 2


KG_TOKEN = "kg-test-token-0a7d2c9e41f8"
SHARED = ["SHARD_HOME", "XDG_CONFIG_HOME", "IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "HOME"]


async def test_notebook_kernels_on_a_kernel_gateway_are_adopted_too(
    servers: Servers, tmp_path: Path
) -> None:
    pytest.importorskip("kernel_gateway", reason="jupyter_kernel_gateway is a dev dependency")
    root = tmp_path / "root"
    project(root, servers)
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
        "--set", f"ServerApp.root_dir={root}",
        env={"JUPYTER_GATEWAY_AUTH_TOKEN": KG_TOKEN},
    )  # fmt: skip

    session = await open_notebook(server, "proj/analysis.ipynb")
    [agent] = await agents(server)
    assert summary(agent) == ("analysis", "proj/analysis.ipynb", str(root / "proj"), "running")
    assert agent["kernel_id"] == session["kernel"]["id"]
    remote = body(await api(kg, "GET", "/api/kernels", token=KG_TOKEN))
    assert [k["id"] for k in remote] == [agent["kernel_id"]]  # it runs on the kernel gateway
    assert "First answer." in texts(await prompt(server, agent["kernel_id"], "hello"))
    killed = body(await api(server, "DELETE", f"/shard/api/agents/{agent['id']}"))
    assert killed["runtime_state"] == "stopped"
    assert body(await api(kg, "GET", "/api/kernels", token=KG_TOKEN)) == []
