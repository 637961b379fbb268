"""Workflows as durable gateway jobs on a real `shard gateway`: three scripted agents (two in
parallel, one chained on their reports) write a.txt/b.txt/c.txt; the gateway and its kernels
are SIGKILLed while the third runs; a restarted gateway resumes the run, replays the finished
steps (not run again: one job and one turn each) and runs the third. A `wf.ask` is on every
events subscriber, survives a restart while pending, refuses an answer that is no choice, and
the first answer wins; `shard workflow run --gateway --follow` answers one on stdin."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from shard_core.protocol.orchestrator import WorkflowUpdatedEvent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayLink
from tests.integration.gateway.conftest import (
    TOKEN,
    Server,
    Servers,
    alive,
    api,
    body,
    write_script,
)
from tests.integration.gateway.ws_agent import WsAgent

WORKFLOW = """
async def main(wf):
    a, b = await wf.parallel(
        wf.agent("write a.txt", model=wf.inputs["a"]),
        wf.agent("write b.txt", model=wf.inputs["b"]),
    )
    wf.log("both wrote")
    return await wf.agent(f"combine: {a} + {b}", model=wf.inputs["c"])
"""
ASKING = """
async def main(wf):
    pick = await wf.ask("Which file?", ["a.txt", "b.txt"])
    return await wf.agent(f"write {pick}", model=wf.inputs[pick])
"""
ALLOW = ["Write(a.txt)", "Write(b.txt)", "Write(c.txt)"]


def _writer(folder: Path, name: str, text: str, report: str, delay: float = 0) -> str:
    call = {"name": "write", "input": {"path": name, "content": text}}
    script = {"name": name, "steps": [{"tool_calls": [call], "delay": delay}, {"text": report}]}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(script))
    return f"scripted/{path}"


async def _start(server: Server, file: Path, work: Path, inputs: dict[str, str]) -> dict[str, Any]:
    started = await api(server, "POST", "/shard/api/workflows", {
        "file": str(file), "cwd": str(work), "inputs": inputs, "permissions": {"allow": ALLOW}
    })  # fmt: skip
    assert started.code == 201, started.body
    return body(started)


async def _run(server: Server, run_id: str) -> dict[str, Any]:
    got = await api(server, "GET", f"/shard/api/workflows/{run_id}")
    assert got.code == 200, got.body
    return body(got)


async def _until(server: Server, run_id: str, done: Any, within: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while not done(run := await _run(server, run_id)):
        assert time.monotonic() < deadline, run
        await asyncio.sleep(0.2)
    return run


async def _jobs(server: Server, parent: str) -> list[dict[str, Any]]:
    return body(await api(server, "GET", f"/shard/api/jobs?parent={parent}"))["jobs"]


def _crash(server: Server) -> None:
    """SIGKILL the gateway and every kernel it started (a machine losing power)."""
    pids = server.kernels()
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(30)
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


async def test_three_agents_survive_a_gateway_crash_and_resume(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    inputs = {
        "a": _writer(tmp_path, "a.txt", "A\n", "wrote A"),
        "b": _writer(tmp_path, "b.txt", "B\n", "wrote B"),
        "c": _writer(tmp_path, "c.txt", "A+B\n", "combined", delay=8),
    }
    flow = tmp_path / "flow.py"
    flow.write_text(WORKFLOW)
    server = servers.start()
    run = await _start(server, flow, workspace, inputs)
    run_id, agent_id = run["id"], run["agent_id"]

    def third_running(r: dict[str, Any]) -> bool:
        return len(r["jobs"]) == 3 and sum(s["kind"] == "agent" for s in r["steps"]) == 2

    third_job = (await _until(server, run_id, third_running))["jobs"][2]
    state, deadline = "queued", time.monotonic() + 60
    while state != "running":  # the third agent's turn is in its scripted delay
        state = body(await api(server, "GET", f"/shard/api/jobs/{third_job}"))["runs"][0]["state"]
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.2)
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    children = [a for a in listed if a.get("parent_agent_id") == agent_id]
    assert len(children) == 3  # the steps' agents are listed under the workflow's agent
    _crash(server)
    assert not (workspace / "c.txt").exists()

    again = servers.start()
    ended = await _until(again, run_id, lambda r: r["state"] != "running")
    assert (ended["state"], ended["error"], ended["result"]) == ("completed", None, "combined")
    assert [(workspace / f).read_text() for f in ("a.txt", "b.txt", "c.txt")] == [
        "A\n", "B\n", "A+B\n"
    ]  # fmt: skip
    assert [(s["n"], s["kind"]) for s in ended["steps"]] == [
        (0, "agent"), (1, "agent"), (2, "log"), (3, "agent")
    ]  # fmt: skip
    jobs = {j["id"]: j for j in await _jobs(again, agent_id)}
    assert len(ended["jobs"]) == 4  # one more than the steps: the third ran twice
    assert set(ended["jobs"]) == set(jobs)
    states = [jobs[j]["state"] for j in ended["jobs"]]
    assert states == ["completed", "completed", "interrupted", "completed"]
    home = Path(again.env["SHARD_HOME"])
    for job_id, task in zip(ended["jobs"][:2], ("write a.txt", "write b.txt"), strict=True):
        child = jobs[job_id]["runs"][0]["agent_id"]  # the finished steps ran once: one prompt
        logs = list((home / "agents" / child / "sessions").glob("*.jsonl"))
        lines = [x for f in logs for x in f.read_text().splitlines() if '"type":"message"' in x]
        prompts = [x for x in lines if f'"{task}"' in x]
        assert len(logs) == 1
        assert len(prompts) == 1, prompts


async def _pending_event(feed: EventFeed, run_id: str) -> WorkflowUpdatedEvent:
    async def wait() -> WorkflowUpdatedEvent:
        while True:
            event = await feed.next_event()
            if not isinstance(event, WorkflowUpdatedEvent) or event.run_id != run_id:
                continue
            if event.run["pending"] is not None:
                return event

    return await asyncio.wait_for(wait(), 120)


async def test_a_question_survives_a_restart_and_the_first_answer_wins(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    inputs = {"a.txt": _writer(tmp_path, "a.txt", "A\n", "wrote A"),
              "b.txt": _writer(tmp_path, "b.txt", "B\n", "wrote B")}  # fmt: skip
    flow = tmp_path / "asking.py"
    flow.write_text(ASKING)
    server = servers.start()
    feed = EventFeed(GatewayLink(server.url, TOKEN))
    await feed.connect()
    run_id = (await _start(server, flow, workspace, inputs))["id"]
    asked = (await _pending_event(feed, run_id)).run["pending"]  # every subscriber sees it
    agent_id = (await _run(server, run_id))["agent_id"]
    while agent_id not in feed.agents:  # the run's agent is listed on the events at once
        await asyncio.wait_for(feed.next_event(), 60)
    assert feed.agents[agent_id].name == f"workflow asking.py ({run_id})"
    await feed.close()
    assert (asked["question"], asked["choices"]) == ("Which file?", ["a.txt", "b.txt"])

    server.stop()  # a restart while the question is open
    again = servers.start()
    pending = (await _run(again, run_id))["pending"]
    assert pending == asked  # the same question, the same request id
    path = f"/shard/api/workflows/{run_id}/answer"
    wrong = await api(again, "POST", path, {"request_id": asked["request_id"], "value": "c.txt"})
    assert wrong.code == 400, wrong.body
    assert (
        "'c.txt' is not one of the choices: 'a.txt', 'b.txt'; the question is still open"
        in (body(wrong)["message"])
    )
    answer = {"request_id": asked["request_id"], "value": ["b.txt"], "label": "tester"}
    first = await api(again, "POST", path, answer)
    assert first.code == 200, first.body
    late = await api(again, "POST", path, {**answer, "value": "a.txt", "label": "late"})
    assert late.code == 409, late.body
    assert "the question was already answered by tester" in body(late)["message"]

    ended = await _until(again, run_id, lambda r: r["state"] != "running")
    assert (ended["state"], ended["result"], ended["pending"]) == ("completed", "wrote B", None)
    assert ended["answered"] == {asked["request_id"]: "tester"}
    ask = ended["steps"][0]
    assert (ask["kind"], ask["result"], ask["decided_by"]) == ("ask", '["b.txt"]', "tester")
    assert (workspace / "b.txt").read_text() == "B\n"
    assert not (workspace / "a.txt").exists()


def test_follow_answers_a_question_on_stdin_and_bad_input_is_said(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    flow = tmp_path / "pick.py"
    flow.write_text(
        "async def main(wf):\n"
        "    pick = await wf.ask('Colour?', ['red', 'blue'], multi=True)\n"
        "    wf.log(f'picked {pick}')\n"
        "    return ' and '.join(pick)\n"
    )
    unknown = tmp_path / "unknown.py"
    unknown.write_text("async def main(wf):\n    await wf.agent('hi', definition='nobody')\n")
    server = servers.start()
    argv = [sys.executable, "-m", "shard_kernel.cli", "workflow", "run", "--url", server.url,
            "--token", TOKEN, "--follow"]  # fmt: skip
    env = {**server.env, "PYTHONPATH": str(Path.cwd())}
    done = subprocess.run([*argv, str(flow)], input="3\n2,1\n", env=env, cwd=workspace,
                          capture_output=True, text=True, timeout=180, check=False)  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "? Colour?\n  1. red\n  2. blue" in said
    assert "'3' is not one of the choices: 'red', 'blue'; the question is still open" in said
    assert said.rstrip().endswith(": completed"), said
    run_id = said.split("workflow ", 1)[1].split(":", 1)[0]
    status = subprocess.run([*argv[:4], "status", run_id, *argv[5:9]], env=env, cwd=workspace,
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert "step 0 ask: 'Colour?' -> '[\"blue\", \"red\"]'" in status.stdout, status.stdout
    assert "step 1 log: \"picked ['blue', 'red']\"" in status.stdout, status.stdout

    for verb in (["cancel", run_id], ["run", "--resume", run_id]):  # it is the gateway's run
        local = subprocess.run([*argv[:4], *verb], env=env, cwd=workspace, capture_output=True,
                               text=True, timeout=60, check=False)  # fmt: skip
        assert local.returncode != 0
        assert f"run {run_id} runs in a gateway" in local.stdout + local.stderr

    failed = subprocess.run([*argv, str(unknown)], env=env, cwd=workspace, capture_output=True,
                            text=True, timeout=180, check=False)  # fmt: skip
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert ": failed: " in failed.stdout, failed.stdout
    assert "nobody" in failed.stdout, failed.stdout
    missing = subprocess.run([*argv, str(tmp_path / "none.py")], env=env, cwd=workspace,
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert missing.returncode != 0
    assert f"no workflow file at {tmp_path / 'none.py'}" in missing.stderr, missing.stderr


async def test_a_question_reaches_the_clients_of_the_agent_that_started_it(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    server = servers.start()
    model = write_script(tmp_path, [{"text": "hi"}], "starter.json")
    created = await api(server, "POST", "/shard/api/agents", {
        "cwd": str(workspace), "model": model, "permissions": {"allow": ALLOW}
    })  # fmt: skip
    starter = body(created)
    flow = tmp_path / "pick.py"
    flow.write_text(
        "async def main(wf):\n"
        "    first = await wf.ask('Which file?', ['a', 'b'])\n"
        "    return first + await wf.ask('And then?', ['c', 'd'])\n"
    )
    refused = await api(server, "POST", "/shard/api/workflows", {
        "file": str(flow), "agent": starter["id"], "permissions": {"allow": ["Bash"]}
    })  # fmt: skip
    assert refused.code == 400, refused.body
    assert "a workflow an agent starts has that agent's rules" in body(refused)["message"]

    person = await WsAgent.connect(server, starter["kernel_id"], "bea")
    await person.attach()
    other = await WsAgent.connect(server, starter["kernel_id"], "cy")
    await other.attach()
    started = await api(server, "POST", "/shard/api/workflows",
                        {"file": str(flow), "agent": starter["id"]})  # fmt: skip
    assert started.code == 201, started.body
    run = body(started)
    request = await person.wait_event("ui_request")  # an ask_user dialog in its clients
    assert (request["ui"], request["title"], request["options"]) == (
        "question", "Which file?", ["a", "b"]
    )  # fmt: skip
    reply = await person.command({"type": "ui_response", "request_id": request["request_id"],
                                  "value": ["b"], "client_id": "bea", "label": "Bea"})  # fmt: skip
    assert reply["ok"] is True, reply

    # the second question is answered over REST: the dialog closes in each of the starter's
    # clients, which say who answered
    def asked(client: WsAgent) -> list[dict[str, Any]]:
        return [e for e in client.events if e["type"] == "ui_request" and e["title"] == "And then?"]

    for client in (person, other):
        await client.wait_for(lambda c=client: bool(asked(c)))
    pending = (await _until(server, run["id"], lambda r: r["pending"] is not None))["pending"]
    answer = {"request_id": pending["request_id"], "value": "d", "label": "tester"}
    done = await api(server, "POST", f"/shard/api/workflows/{run['id']}/answer", answer)
    assert done.code == 200, done.body
    for client in (person, other):
        rid = asked(client)[0]["request_id"]

        def closed(c: WsAgent = client, r: str = rid) -> list[dict[str, Any]]:
            return [e for e in c.events if e["type"] == "ui_resolved" and e["request_id"] == r]

        await client.wait_for(lambda c=closed: bool(c()), within=30)
        assert [(e["decided_by"], e["value"]) for e in closed()] == [("tester", ["d"])]
    ended = await _until(server, run["id"], lambda r: r["state"] != "running")
    assert (ended["state"], ended["result"]) == ("completed", "bd")
    assert list(ended["answered"].values()) == ["Bea", "tester"]
    second = asked(person)[0]["request_id"]
    late = await person.command({"type": "ui_response", "request_id": second, "value": ["c"],
                                 "client_id": "bea", "label": "Bea"})  # fmt: skip
    assert (late["ok"], late["message"]) == (False, "already decided by tester")
    manifests = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    mine = next(a for a in manifests if a["id"] == run["agent_id"])
    assert mine["parent_agent_id"] == starter["id"]  # the run's agent is listed under its starter
    home = Path(server.env["SHARD_HOME"])
    manifest = json.loads((home / "agents" / run["agent_id"] / "manifest.json").read_text())
    assert manifest["permissions"]["allow"] == ALLOW  # the starter's rules, which bound its steps
    await person.aclose()
    await other.aclose()


async def test_a_deadline_and_a_cancel_stop_the_running_steps(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    model = write_script(tmp_path, [{"text": "done", "delay": 60}], "slow.json")
    flow = tmp_path / "slow.py"
    flow.write_text(f"async def main(wf):\n    return await wf.agent('wait', model={model!r})\n")
    server = servers.start()

    async def started(**extra: Any) -> dict[str, Any]:
        made = await api(server, "POST", "/shard/api/workflows",
                         {"file": str(flow), "cwd": str(workspace), **extra})  # fmt: skip
        assert made.code == 201, made.body
        run = await _until(server, body(made)["id"], lambda r: len(r["jobs"]) == 1)
        return run

    async def job_state(job_id: str) -> str:
        deadline = time.monotonic() + 60
        while (job := body(await api(server, "GET", f"/shard/api/jobs/{job_id}")))["state"] in (
            "queued", "running"
        ):  # fmt: skip
            assert time.monotonic() < deadline, job
            await asyncio.sleep(0.2)
        return job["state"]

    bounded = await started(deadline=3)
    ended = await _until(server, bounded["id"], lambda r: r["state"] != "running")
    assert (ended["state"], ended["error"]) == (
        "failed", "the run passed its deadline of 3 s (--deadline); finished steps stay"
    )  # fmt: skip
    assert await job_state(ended["jobs"][0]) == "stopped"

    free = await started()
    path = f"/shard/api/workflows/{free['id']}/cancel"
    cancelled = await api(server, "POST", path, {})
    assert cancelled.code == 200, cancelled.body
    assert body(cancelled)["state"] == "cancelled"
    assert await job_state(free["jobs"][0]) == "stopped"
    again = await api(server, "POST", path, {})
    assert again.code == 409, again.body
    assert f"run {free['id']} is cancelled, not running" in body(again)["message"]


BOUNDED = """
async def main(wf):
    first = await wf.agent("write a.txt", model=wf.inputs["a"])
    wf.log(f"first: {first}")
    await wf.agent("write b.txt", model=wf.inputs["b"])
    await wf.agent("write c.txt", model=wf.inputs["b"])
"""


def test_follow_goes_on_across_a_gateway_restart_and_the_bound_holds(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    inputs = {"a": _writer(tmp_path, "a.txt", "A\n", "wrote A", delay=4),
              "b": _writer(tmp_path, "b.txt", "B\n", "wrote B")}  # fmt: skip
    flow = tmp_path / "bounded.py"
    flow.write_text(BOUNDED)
    server = servers.start()
    argv = [sys.executable, "-m", "shard_kernel.cli", "workflow", "run", "--url", server.url,
            "--token", TOKEN, "--follow", "--max-agents", "2",
            *[x for k, v in inputs.items() for x in ("--input", f"{k}={v}")],
            *[x for rule in ALLOW for x in ("--allow", rule)], str(flow)]  # fmt: skip
    env = {**server.env, "PYTHONPATH": str(Path.cwd())}
    out = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True}
    follow = subprocess.Popen(argv, env=env, cwd=workspace, stdin=subprocess.DEVNULL, **out)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(follow.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any(line.endswith(" running\n") for line in lines[1:]):
            # followed: the first step's agent is running (in its 4 s), as its job's event says
            assert follow.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        server.stop()  # the follower loses the gateway mid-run
        again = servers.start(port=server.port)
        follow.wait(240)
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait(30)
        reader.join(30)
        if follow.stdout is not None:
            follow.stdout.close()
    said = "".join(lines)
    home = Path(server.env["SHARD_HOME"])
    assert "the gateway went away; waiting for it to come back" in said, said
    run_id = said.split("workflow ", 1)[1].split(":", 1)[0]
    assert said.rstrip().endswith(
        f"workflow {run_id}: failed: the workflow asked for agent 3; its bound is 2 (--max-agents)"
    ), said  # followed to the end on the restarted gateway
    assert follow.returncode == 1, said
    assert [(workspace / f).read_text() for f in ("a.txt", "b.txt")] == ["A\n", "B\n"]
    assert not (workspace / "c.txt").exists()
    record = json.loads((home / "jobs" / "workflows" / run_id / "run.json").read_text())
    assert len(record["jobs"]) == 3  # the first step ran twice (cut by the stop), the second once
    steps = [json.loads(x) for x in (home / "jobs" / "workflows" / run_id / "steps.jsonl")
             .read_text().splitlines()]  # fmt: skip
    assert [(s["n"], s["kind"], s["result"]) for s in steps] == [
        (0, "agent", "wrote A"), (1, "log", ""), (2, "agent", "wrote B")
    ]  # fmt: skip
    assert again.port == server.port


async def test_a_restart_does_not_reset_the_deadline(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    model = write_script(tmp_path, [{"text": "done", "delay": 60}], "slow.json")
    flow = tmp_path / "slow.py"
    flow.write_text(f"async def main(wf):\n    return await wf.agent('wait', model={model!r})\n")
    server = servers.start()
    made = await api(server, "POST", "/shard/api/workflows",
                     {"file": str(flow), "cwd": str(workspace), "deadline": 6})  # fmt: skip
    assert made.code == 201, made.body
    run = await _until(server, body(made)["id"], lambda r: len(r["jobs"]) == 1)
    server.stop()  # the run stays running on disk, to be resumed at the next start
    await asyncio.sleep(max(0.0, run["created"] + 6.5 - time.time()))  # it passes while down
    again = servers.start()
    ended = await _until(again, run["id"], lambda r: r["state"] != "running", within=60)
    assert (ended["state"], ended["error"]) == (
        "failed", "the run passed its deadline of 6 s (--deadline); finished steps stay"
    )  # fmt: skip
    assert ended["jobs"] == run["jobs"]  # the cut step is not started again past the deadline


async def test_bad_workflow_files_fail_with_a_message_and_keep_their_steps(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    files = {
        "broken.py": "import no_such_module_here\n",
        "raises.py": "async def main(wf):\n    wf.log('before')\n    raise ValueError('boom')\n",
        "idle.py": "async def main(wf):\n    wf.log('made one')\n    wf.agent('never awaited')\n",
        "nomain.py": "def main(wf):\n    return 1\n",
    }
    said = {
        "broken.py": "does not import: ModuleNotFoundError: No module named 'no_such_module_here'",
        "raises.py": "main raised ValueError: boom (line 3)",
        "idle.py": "step 1 (wf.agent('never awaited')) was never awaited: await it, or pass it "
                   "to wf.parallel",
        "nomain.py": "has no `async def main(wf)`",
    }  # fmt: skip
    server = servers.start()
    runs = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        made = await api(server, "POST", "/shard/api/workflows",
                         {"file": str(tmp_path / name), "cwd": str(workspace)})  # fmt: skip
        assert made.code == 201, made.body
        runs[name] = body(made)["id"]
    for name, run_id in runs.items():
        ended = await _until(server, run_id, lambda r: r["state"] != "running", within=60)
        assert ended["state"] == "failed", ended
        assert said[name] in ended["error"], ended["error"]
        assert ended["jobs"] == []  # nothing was started
    kept = {n: [(s["kind"], s["asked"]) for s in (await _run(server, r))["steps"]]
            for n, r in runs.items()}  # fmt: skip
    assert kept == {"broken.py": [], "raises.py": [("log", "before")],
                    "idle.py": [("log", "made one")], "nomain.py": []}  # fmt: skip
    again = await api(server, "POST", "/shard/api/workflows", {"file": str(tmp_path / "no.py")})
    assert again.code == 400, again.body
    assert f"no workflow file at {tmp_path / 'no.py'}" in body(again)["message"]


async def test_a_file_that_blocks_or_crashes_ends_its_run_not_the_gateway(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    blocks = tmp_path / "blocks.py"  # blocks its loop: no await can stop it
    blocks.write_text(
        "import time\n\nasync def main(wf):\n    wf.log('going')\n    time.sleep(600)\n"
    )
    crashes = tmp_path / "crashes.py"
    crashes.write_text(
        "import os, sys\n\nasync def main(wf):\n    wf.log('about to crash')\n"
        "    print('out of here', file=sys.stderr)\n    os._exit(3)\n"
    )
    prints = tmp_path / "prints.py"  # its prints and reads do not break the line to the gateway
    prints.write_text(
        'import sys\n\nasync def main(wf):\n    print(\'{"id": 0, "report": "forged"}\')\n'
        "    sys.stdin.read()\n    return 'printed'\n"
    )
    server = servers.start()
    runs = {}
    for path, extra in ((blocks, {"deadline": 4}), (crashes, {}), (prints, {})):
        made = await api(server, "POST", "/shard/api/workflows",
                         {"file": str(path), "cwd": str(workspace), **extra})  # fmt: skip
        assert made.code == 201, made.body
        runs[path.name] = body(made)["id"]
    await _until(server, runs["blocks.py"], lambda r: bool(r["steps"]), within=60)
    # while the file blocks the gateway answers (in its process the file held it 600 s)
    listed = await asyncio.wait_for(api(server, "GET", "/shard/api/agents"), 30)
    assert listed.code == 200, listed.body
    crashed = await _until(server, runs["crashes.py"], lambda r: r["state"] != "running")
    assert (crashed["state"], crashed["error"]) == (
        "failed", "the workflow's process ended (exit code 3) before the run did: out of here"
    )  # fmt: skip
    assert [s["asked"] for s in crashed["steps"]] == ["about to crash"]
    printed = await _until(server, runs["prints.py"], lambda r: r["state"] != "running")
    assert (printed["state"], printed["result"]) == ("completed", "printed"), printed
    blocked = await _until(server, runs["blocks.py"], lambda r: r["state"] != "running")
    assert (blocked["state"], blocked["error"]) == (
        "failed", "the run passed its deadline of 4 s (--deadline); finished steps stay"
    )  # fmt: skip
    assert server.proc.poll() is None  # the gateway lives on
    assert body(await api(server, "GET", "/shard/api/workflows"))["runs"]
