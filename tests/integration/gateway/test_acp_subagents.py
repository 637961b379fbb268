"""ACP agents as subagents, on a real `shard gateway`: an agent definition names an ACP backend
(`backend: {acp: [...]}`), the scripted parent launches it with subagent_launch, and the child
is a real ACP agent process (written below with the official SDK's agent side) that the
gateway drives through the SDK's client connection. The child asks permission for an edit and
Shard's gate answers from the child's bounds (an allow rule; without it, the headless deny);
its fs requests are served inside its workspace only; its updates land in its session log and
events; its report reaches the parent. Bad backends (a command that is not there, an unknown
kind, a child that crashes mid-turn, one that never answers) are clear results, and no agent
process is left behind."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from tests.integration.gateway.conftest import Server, Servers, api, body, write_script
from tests.integration.gateway.test_subagents import _create, _job, _prompt, _session_text, _settled

AGENT = '''\
"""A small ACP agent: `edit` asks to edit notes.txt and writes it through the client's fs;
`crash` dies mid-turn; `mute` never answers; `hang` waits for session/cancel, `deaf` ignores
it."""
import asyncio, os, sys, time
from pathlib import Path

import acp
from acp.schema import (
    AgentCapabilities, FileEditToolCallContent, PermissionOption, ToolCallLocation,
    ToolCallStart, ToolCallProgress, ToolCallUpdate, AllowedOutcome,
)

MODE = sys.argv[1]
if MODE == "mute":
    time.sleep(600)


class Agent:
    def on_connect(self, conn):
        self.conn = conn

    async def initialize(self, protocol_version, **kwargs):
        return acp.InitializeResponse(
            protocol_version=protocol_version, agent_capabilities=AgentCapabilities()
        )

    async def new_session(self, cwd, **kwargs):
        self.cwd = Path(cwd)
        self.cancelled = asyncio.Event()
        return acp.NewSessionResponse(session_id="child-session-1")

    async def cancel(self, session_id, **kwargs):
        if MODE == "hang":
            self.cancelled.set()

    async def say(self, session_id, text):
        await self.conn.session_update(session_id, acp.update_agent_message_text(text))

    async def prompt(self, prompt, session_id, **kwargs):
        asked = " ".join(b.text for b in prompt if getattr(b, "text", None))
        await self.say(session_id, "Looking at notes.txt. ")
        if MODE in ("hang", "deaf"):
            await self.say(session_id, "Working on it.")
            await (self.cancelled.wait() if MODE == "hang" else asyncio.sleep(600))
            return acp.PromptResponse(stop_reason="cancelled")
        if MODE == "crash":
            print("boom: the child fell over", file=sys.stderr, flush=True)
            os._exit(3)
        target = str(self.cwd / "notes.txt")
        old = (await self.conn.read_text_file(session_id=session_id, path=target)).content
        new = old.replace("TODO", "DONE")
        call = ToolCallStart(
            session_update="tool_call", tool_call_id="call-1", title="Edit notes.txt",
            kind="edit", status="pending", locations=[ToolCallLocation(path=target)],
            raw_input={"path": target},
        )
        await self.conn.session_update(session_id, call)
        options = [
            PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
            PermissionOption(option_id="always", name="Always", kind="allow_always"),
            PermissionOption(option_id="no", name="Reject", kind="reject_once"),
            PermissionOption(option_id="never", name="Never", kind="reject_always"),
        ]
        asking = ToolCallUpdate(tool_call_id="call-1", title="Edit notes.txt", kind="edit")
        answer = await self.conn.request_permission(
            session_id=session_id, tool_call=asking, options=options
        )
        chosen = answer.outcome.option_id if isinstance(answer.outcome, AllowedOutcome) else None
        try:
            await self.conn.write_text_file(
                session_id=session_id, path=str(self.cwd.parent / "outside.txt"), content="x"
            )
            outside = "the outside write went through"
        except acp.RequestError as exc:
            outside = f"the outside write was refused ({exc.data['message']})"
        if chosen == "yes":
            await self.conn.write_text_file(session_id=session_id, path=target, content=new)
            done = ToolCallProgress(
                session_update="tool_call_update", tool_call_id="call-1", status="completed",
                content=[FileEditToolCallContent(type="diff", path=target, old_text=old,
                                                 new_text=new)],
            )
            await self.conn.session_update(session_id, done)
            await self.say(session_id, f"I edited notes.txt; {outside}. Task: {asked[-20:]}")
        else:
            try:
                await self.conn.write_text_file(session_id=session_id, path=target, content=new)
                sneaked = "my unasked write went through"
            except acp.RequestError as exc:
                sneaked = f"my unasked write was refused ({exc.data['message']})"
            failed = ToolCallProgress(
                session_update="tool_call_update", tool_call_id="call-1", status="failed"
            )
            await self.conn.session_update(session_id, failed)
            await self.say(session_id, f"I was not allowed ({chosen}); {sneaked}.")
        return acp.PromptResponse(stop_reason="end_turn")


asyncio.run(acp.run_agent(Agent()))
'''
PARENT_ALLOW = ["SubagentLaunch", "SubagentWait", "Edit(notes.txt)"]


def _definition(server: Server, name: str, backend: Any, allow: list[str] | None = None) -> None:
    folder = Path(server.env["XDG_CONFIG_HOME"]) / "shard" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"name": name, "description": "An ACP agent", "backend": backend}
    if allow is not None:
        front["permissions"] = {"allow": allow}
    # JSON is YAML: the front-matter as JSON keeps the command's words exact.
    (folder / f"{name}.md").write_text(f"---\n{json.dumps(front)}\n---\nDo as told.\n")


def _agent(workspace: Path, mode: str, **extra: Any) -> dict[str, Any]:
    script = workspace.parent / "acp_agent.py"
    script.write_text(AGENT)
    return {"command": [sys.executable, str(script), mode], **extra}


def _launch(agent: str, task: str = "mark the notes done") -> dict[str, Any]:
    return {"tool_calls": [{"name": "subagent_launch", "input": {"task": task, "agent": agent}}]}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _no_agent_left(server: Server) -> None:
    for pid in server.kernels():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert b"acp_agent.py" not in cmdline, cmdline


async def test_an_acp_child_asks_the_gate_edits_in_bounds_and_reports(
    servers: Servers, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("TODO: ship it\n")
    server = servers.start()
    home = Path(server.env["SHARD_HOME"])
    _definition(server, "acp-editor", {"acp": _agent(workspace, "edit")}, ["Edit(notes.txt)"])
    _definition(server, "acp-unallowed", {"acp": _agent(workspace, "edit")}, ["SubagentWait"])
    parent_script = [
        _launch("acp-editor"),
        {"text": "Launched the editor."},
        {"text": "It reported."},
    ]
    parent = await _create(
        server, workspace, write_script(workspace.parent, parent_script), permissions={
            "allow": PARENT_ALLOW}
    )  # fmt: skip
    await _prompt(server, parent["kernel_id"], "mark the notes done with the ACP agent")
    [job] = await _settled(server, parent["id"], 1, delivered=True)
    full = await _job(server, job["id"])
    run = full["runs"][0]
    assert (full["state"], run["state"], run["reason"]) == ("completed", "completed", None), full
    # The report is the child's last message (its first went with its tool call).
    assert run["report"].startswith(
        "I edited notes.txt; the outside write was refused (edit refused: path escapes the "
        "workspace"
    ), run["report"]
    assert (workspace / "notes.txt").read_text() == "DONE: ship it\n"
    assert not (workspace.parent / "outside.txt").exists()

    # The child's updates are Shard's: its session log and its events.
    child = run["agent_id"]
    log = _session_text(home, child)
    entries = [json.loads(line) for line in log.splitlines()]
    [decision] = [e["details"] for e in entries if e["type"] == "permission"]
    assert (decision["tool"], decision["decision"], decision["source"]) == (
        "edit", "allow", "rule"
    )  # fmt: skip
    assert decision["rule"] == "Edit(notes.txt)"
    [result] = [e["details"] for e in entries if e["type"] == "tool_result"]
    assert (result["name"], result["result"]["is_error"]) == ("edit", False)
    assert f"of agent {parent['id']}" not in log  # the note went to the ACP agent, not the log
    kinds = [e["type"] for e in _lines(home / "agents" / child / "events.jsonl")]
    for kind in ("turn_start", "tool_call", "permission_resolved", "tool_result", "turn_end"):
        assert kind in kinds, kinds
    assert (kinds[0], kinds[-1]) == ("turn_start", "turn_end")
    assert run["session_id"] == (home / "agents" / child / "current-session").read_text().strip()

    # The report reaches the parent like any child's.
    await _prompt(server, parent["kernel_id"], "did it report?")
    parent_log = _session_text(home, parent["id"])
    assert f"[subagent job {job['id']} (single, 1 run) completed]" in parent_log
    assert "I edited notes.txt" in parent_log

    # With only an unrelated allow rule the headless policy denies: the agent is told no, and its
    # write without permission is refused too.
    (workspace / "notes.txt").write_text("TODO: again\n")
    launched = await api(
        server, "POST", "/shard/api/jobs", {"parent": parent["id"], "task": "mark it done",
                                            "agent": "acp-unallowed"},
    )  # fmt: skip
    assert launched.code == 201, launched.body
    jobs = await _settled(server, parent["id"], 2)
    denied = await _job(server, next(j["id"] for j in jobs if j["id"] != job["id"]))
    report = denied["runs"][0]["report"]
    assert denied["state"] == "completed", denied
    assert "I was not allowed (no); my unasked write was refused (writing " in report, report
    assert (workspace / "notes.txt").read_text() == "TODO: again\n"
    entries = [
        json.loads(x) for x in _session_text(home, denied["runs"][0]["agent_id"]).splitlines()
    ]
    [decision] = [e["details"] for e in entries if e["type"] == "permission"]
    assert (decision["decision"], decision["source"]) == ("deny", "headless")
    _no_agent_left(server)


async def test_bad_acp_backends_are_clear_results_and_bounded(
    servers: Servers, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("TODO\n")
    server = servers.start()
    home = Path(server.env["SHARD_HOME"])
    _definition(server, "acp-missing", {"acp": ["no-such-acp-agent-xyz", "acp"]})
    _definition(server, "acp-odd", {"telepathy": ["x"]})
    _definition(server, "acp-crash", {"acp": _agent(workspace, "crash")})
    _definition(server, "acp-mute", {"acp": _agent(workspace, "mute", timeout=3)})
    parent_script = [
        _launch("acp-missing"),
        _launch("acp-odd"),
        _launch("acp-crash"),
        _launch("acp-mute"),
        {"text": "Tried them all."},
    ]
    parent = await _create(server, workspace, write_script(workspace.parent, parent_script))
    await _prompt(server, parent["kernel_id"], "try the ACP agents")
    log = _session_text(home, parent["id"])
    assert (
        "subagent_launch: agent definition acp-missing: backend acp: command not found: "
        "'no-such-acp-agent-xyz' (not an executable on the gateway's PATH)"
    ) in log
    assert "names backend 'telepathy', which this gateway does not have (known: acp)" in log

    jobs = await _settled(server, parent["id"], 2)
    runs = {j["definition"]: (await _job(server, j["id"]))["runs"][0] for j in jobs}
    crashed, mute = runs["acp-crash"], runs["acp-mute"]
    assert crashed["state"] == "failed"
    assert "acp_agent.py crash` exited mid-turn (exit code 3)" in crashed["reason"]
    assert "boom: the child fell over" in crashed["reason"]
    assert mute["state"] == "failed"
    assert mute["reason"].endswith("acp_agent.py mute` did not answer initialize within 3s")
    # The crashed child's log ends its turn with the error; nothing is lost of what it said.
    events = _lines(home / "agents" / crashed["agent_id"] / "events.jsonl")
    assert (events[-1]["type"], events[-1]["reason"]) == ("turn_end", "error")
    assert "Looking at notes.txt." in _session_text(home, crashed["agent_id"])
    _no_agent_left(server)
    assert body(await api(server, "GET", f"/shard/api/agents/{parent['id']}"))["id"]


async def test_an_acp_child_stops_on_subagent_stop_and_a_deadline_bounds_a_deaf_one(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    home = Path(server.env["SHARD_HOME"])
    _definition(server, "acp-hang", {"acp": _agent(workspace, "hang")})
    _definition(server, "acp-deaf", {"acp": _agent(workspace, "deaf")})
    parent = await _create(server, workspace, write_script(workspace.parent, [{"text": "hi"}]))

    async def launch(agent: str, **extra: Any) -> dict[str, Any]:
        request = {"parent": parent["id"], "task": "work", "agent": agent, **extra}
        launched = await api(server, "POST", "/shard/api/jobs", request)
        assert launched.code == 201, launched.body
        return body(launched)

    hang = await launch("acp-hang")
    deaf = await launch("acp-deaf", deadline=20)
    events = home / "agents" / hang["runs"][0]["agent_id"] / "events.jsonl"
    deadline = time.monotonic() + 120
    while not (events.exists() and "turn_start" in events.read_text()):
        assert time.monotonic() < deadline, "the ACP child never started its turn"
        await asyncio.sleep(0.5)
    stopped = await api(
        server, "POST", f"/shard/api/jobs/{hang['id']}/stop", {"parent": parent["id"]}
    )
    assert stopped.code == 200, stopped.body
    jobs = {j["id"]: j for j in await _settled(server, parent["id"], 2)}
    hung = (await _job(server, hang["id"]))["runs"][0]
    assert (jobs[hang["id"]]["state"], hung["state"]) == ("stopped", "stopped"), hung
    assert hung["reason"] == "stopped by subagent_stop"
    assert _lines(events)[-1]["reason"] == "aborted"
    deafened = (await _job(server, deaf["id"]))["runs"][0]
    assert (deafened["state"], deafened["reason"]) == ("failed", "the deadline of 20s passed")
    _no_agent_left(server)
