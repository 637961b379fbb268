"""The warm agent pool (gateway/pool.py, warm_start.py) on real servers and kernels: an agent from
the pool is the agent a cold start makes, the pool refills, a Launcher notebook takes one too,
a bound kernel never binds again and restarts cold as its agent, the server's stop ends every
pool kernel, and `shard batch` starts no pool."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

from shard_kernel.gateway.client import shard_event
from tests.fixtures.pool_probe import PROCESS_KEYS
from tests.integration.gateway.conftest import Server, Servers, alive, api, body, write_script
from tests.integration.gateway.ws_agent import WsAgent

PROBE = Path(__file__).resolve().parents[2] / "fixtures" / "pool_probe.py"
CREATE = {"mode": "build", "permissions": {"deny": ["Bash"]}}
MODEL = {"KERNEL_SHARD_MODEL": "probe/pool"}
"""the model of agents created without one"""


def install_probe(servers: Servers) -> None:
    extensions = Path(servers.env["SHARD_HOME"]) / "extensions"
    extensions.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROBE, extensions / "pool_probe.py")


async def pool_state(server: Server, ready: int, within: float = 120.0) -> dict[str, Any]:
    """The pool once `ready` kernels are ready in it and none is starting."""
    deadline = time.monotonic() + within
    while True:
        state = body(await api(server, "GET", "/shard/api/pool"))
        if (state["ready"], state["starting"]) == (ready, 0) or time.monotonic() > deadline:
            return state
        await asyncio.sleep(0.2)


async def probe(server: Server, kernel_id: str) -> dict[str, Any]:
    """The probe model's answer: the request's tools and system prompt, the two tool results
    (this prompt's: an attach replays the agent's earlier events too)."""
    client = await WsAgent.connect(server, kernel_id, "prober")
    await client.attach()
    msg_id = client.sock.execute("probe yourself")
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"

    def answer() -> dict[str, Any] | None:
        for message in client.messages:
            event = shard_event(message)
            mine = message["parent_header"].get("msg_id") == msg_id
            if mine and event is not None and event["type"] == "message_complete":  # noqa: SIM102
                if event["message"]["content"][0].get("text"):  # the answer, not the calls
                    return event
        return None

    await client.wait_for(lambda: answer() is not None)
    await client.aclose()
    found = answer()
    assert found is not None
    return json.loads(found["message"]["content"][0]["text"])


def comparable(answer: dict[str, Any], agent: dict[str, Any], server: Server) -> dict[str, Any]:
    """The answer with what differs between any two agents and servers put in words."""
    report = json.loads(answer["results"]["probe"]["text"])
    text = json.dumps({**answer, "results": {**answer["results"], "probe": report}})
    for value, word in (
        (agent["id"], "<agent>"),
        (agent["name"], "<name>"),
        (str(server.proc.pid), "<server-pid>"),
        (str(server.port), "<port>"),
    ):
        text = text.replace(value, word)
    return json.loads(text)


async def test_an_agent_from_the_pool_is_the_agent_a_cold_start_makes(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    cold_server = servers.start(env=MODEL, pool=0)
    pool_server = servers.start(env=MODEL, pool=1)
    assert (await pool_state(pool_server, ready=1))["ready"] == 1
    request = {**CREATE, "cwd": str(workspace)}

    cold = body(await api(cold_server, "POST", "/shard/api/agents", request))
    pooled = body(await api(pool_server, "POST", "/shard/api/agents", request))
    cold_answer = await probe(cold_server, cold["kernel_id"])
    pooled_answer = await probe(pool_server, pooled["kernel_id"])

    cold_report = json.loads(cold_answer["results"]["probe"]["text"])
    pooled_report = json.loads(pooled_answer["results"]["probe"]["text"])
    assert (cold_report["started_warm"], pooled_report["started_warm"]) == (False, True)
    for report in (cold_report, pooled_report):
        del report["started_warm"]
        del report["kernels_of_parent"]  # the pool server's has its refilled pool kernel too
        assert report["env"]["JPY_PARENT_PID"] == str(report["ppid"])  # its poller's parent
        report["env"]["JPY_PARENT_PID"] = "<parent>"  # the server, or its fork template
        for key in PROCESS_KEYS:
            del report[key]
    cold_answer["results"]["probe"]["text"] = json.dumps(cold_report)
    pooled_answer["results"]["probe"]["text"] = json.dumps(pooled_report)
    assert comparable(pooled_answer, pooled, pool_server) == comparable(
        cold_answer, cold, cold_server
    )
    # and what they are, so "equal" is not "equally empty"
    assert {"probe", "read", "bash"} <= set(pooled_answer["tools"])
    assert pooled_answer["results"]["bash"]["error"] is True  # the create request's deny rule
    env = pooled_report["env"]
    assert pooled_report["path0"] == pooled_report["cwd"]  # a REST agent's: the server's
    assert env["KERNEL_SHARD_CWD"] == str(workspace.resolve())
    assert env["KERNEL_SHARD_AGENT_ID"] == pooled["id"]
    assert env["KERNEL_SHARD_MODEL"] == "probe/pool"
    assert env["SHARD_HOME"] == servers.env["SHARD_HOME"]
    assert "SHARD_WARM_KERNEL" not in env
    assert (cold["mode"], pooled["mode"]) == ("build", "build")


async def test_the_pool_refills_serves_a_launcher_notebook_and_ends_with_the_server(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    root = ("--set", f"ServerApp.root_dir={workspace.parent}")
    server = servers.start(*root, env=MODEL, pool=1)
    assert (await pool_state(server, ready=1))["ready"] == 1
    assert body(await api(server, "GET", "/api/kernels")) == []  # no one sees the pool

    created = body(await api(server, "POST", "/shard/api/agents", {"cwd": str(workspace)}))
    assert (await pool_state(server, ready=1))["ready"] == 1  # refilled
    listed = body(await api(server, "GET", "/api/kernels"))
    assert [k["id"] for k in listed] == [created["kernel_id"]]

    # a Launcher notebook: JupyterLab's POST /api/sessions, adopted as an agent, from the pool
    nbformat.write(nbformat.v4.new_notebook(), str(workspace / "launched.ipynb"))
    session = await api(server, "POST", "/api/sessions", {
        "path": f"{workspace.name}/launched.ipynb", "name": "launched.ipynb", "type": "notebook",
        "kernel": {"name": "shard"},
    })  # fmt: skip
    assert session.code == 201, session.body
    agents = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    launched = next(a for a in agents if a["notebook"] == "ws/launched.ipynb")
    assert launched["kernel_id"] == body(session)["kernel"]["id"]
    assert (await pool_state(server, ready=1))["ready"] == 1
    report = json.loads((await probe(server, launched["kernel_id"]))["results"]["probe"]["text"])
    assert report["started_warm"] is True
    assert (report["cwd"], report["path0"]) == (str(workspace), str(workspace))  # moved there
    assert report["env"]["JPY_SESSION_NAME"] == str(workspace / "launched.ipynb")
    assert report["env"]["KERNEL_SHARD_AGENT_ID"] == launched["id"]

    killed = await api(server, "DELETE", f"/shard/api/agents/{created['id']}")
    assert body(killed)["runtime_state"] == "stopped"  # its kernel ended, not given back
    assert (await pool_state(server, ready=1))["ready"] == 1
    kernels = server.kernels()
    assert server.stop() == []
    assert not [pid for pid in kernels if alive(pid)]


async def test_a_bound_kernel_refuses_to_be_bound_again_and_restarts_cold(
    servers: Servers, workspace: Path
) -> None:
    install_probe(servers)
    server = servers.start(env=MODEL, pool=1)
    await pool_state(server, ready=1)
    agent = body(await api(server, "POST", "/shard/api/agents", {**CREATE, "cwd": str(workspace)}))
    client = await WsAgent.connect(server, agent["kernel_id"], "rebinder")
    elsewhere = workspace.parent / "elsewhere"
    elsewhere.mkdir()
    msg_id = client.sock.send(
        "shell", "shard_bind_request", {"env": {"KERNEL_SHARD_MODEL": "x/y"}, "cwd": str(elsewhere)}
    )

    def reply() -> dict[str, Any] | None:
        return next((m for m in client.messages if m["parent_header"].get("msg_id") == msg_id
                     and m["header"]["msg_type"] == "shard_bind_reply"), None)  # fmt: skip

    await client.wait_for(lambda: reply() is not None)
    await client.aclose()
    found = reply()
    assert found is not None
    assert found["content"]["status"] == "error"
    assert "bound already" in found["content"]["evalue"]
    report = json.loads((await probe(server, agent["kernel_id"]))["results"]["probe"]["text"])
    assert (report["cwd"], report["env"]["KERNEL_SHARD_MODEL"]) == (os.getcwd(), "probe/pool")
    assert report["started_warm"] is True

    # a restart is a cold start of the same agent, from what its start asked for
    restarted = await api(server, "POST", f"/api/kernels/{agent['kernel_id']}/restart")
    assert restarted.code == 200, restarted.body
    again = json.loads((await probe(server, agent["kernel_id"]))["results"]["probe"]["text"])
    assert again["started_warm"] is False
    assert {k: v for k, v in again["env"].items() if k != "JPY_PARENT_PID"} == {
        k: v for k, v in report["env"].items() if k != "JPY_PARENT_PID"
    }
    assert again["cwd"] == report["cwd"]


def test_shard_batch_starts_no_pool(servers: Servers, workspace: Path) -> None:
    install_probe(servers)
    steps = [{"tool_calls": [{"name": "probe", "input": {}}]}, {"text": "probed"}]
    model = write_script(workspace.parent, steps)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "shard",
        "display_name": "Shard",
        "language": "shard",
    }
    notebook.cells.append(nbformat.v4.new_code_cell("probe yourself"))
    path = workspace / "batch.ipynb"
    nbformat.write(notebook, str(path))
    argv = [sys.executable, "-m", "shard_kernel.cli", "batch", str(path), "--model", model]
    run = subprocess.run(argv, env=servers.env, capture_output=True, timeout=240, check=False)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    logs = list((Path(servers.env["SHARD_HOME"]) / "agents").glob("*/events.jsonl"))
    events = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    result = next(e for e in events if e["type"] == "tool_result" and e["name"] == "probe")
    report = json.loads(result["result"]["content"][0]["text"])
    assert (report["started_warm"], len(report["kernels_of_parent"])) == (False, 1)
