"""`subagent_launch` with `context: "fork"` on a real `shard gateway`: the forked child's first
request carries the parent's completed turn (its scripted model checks the request's newest
tool result), a fresh child's does not; the fork point is in both logs (the child's header, the
parent's launch result); a fork before any completed turn is a clear error result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.engine.session_store import SessionStore, find_session
from shard_core.types import ToolResultEntry
from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_subagents import _create, _definition, _prompt, _settled

MARK = "PARENT-MARK-7"
SAW = "I know what my parent found."
CHILD = [{"expect": {"last_tool_result_contains": MARK, "description": "the parent's turn"},
          "text": SAW}]  # fmt: skip


def _launch(context: str) -> dict[str, Any]:
    task = {"task": "Say what you know.", "agent": "forker", "context": context}
    return {"name": "subagent_launch", "input": task}


async def test_a_forked_child_starts_from_the_parents_turns(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    home = Path(server.env["SHARD_HOME"])
    _definition(server.env, "forker", write_script(workspace.parent, CHILD * 2, "child.json"))
    parent_script = [
        {"tool_calls": [_launch("fork")]},  # turn 1: nothing completed yet to fork from
        {"tool_calls": [{"name": "bash", "input": {"command": f"echo {MARK}"}}]},
        {"text": "Noted."},
        {"tool_calls": [_launch("fork"), _launch("fresh")]},  # turn 2
        {"text": "Launched."},
    ]
    parent = await _create(server, workspace, write_script(workspace.parent, parent_script),
                           permissions={"allow": ["SubagentLaunch", "Bash(echo:*)"]})  # fmt: skip
    await _prompt(server, parent["kernel_id"], "look around")
    await _prompt(server, parent["kernel_id"], "now ask two helpers")
    jobs = await _settled(server, parent["id"], 2)
    forked = next(j for j in jobs if j["fork_entry"])
    fresh = next(j for j in jobs if not j["fork_entry"])
    reports = {}
    for job in (forked, fresh):
        full = body(await api(server, "GET", f"/shard/api/jobs/{job['id']}"))
        reports[job["id"]] = full["runs"][0]["report"]
    assert reports[forked["id"]] == SAW
    assert reports[fresh["id"]].startswith("[scripted demo] expected the parent's turn")

    pointer = home / "agents" / parent["id"] / "current-session"
    parent_log = SessionStore.read(find_session(home, pointer.read_text().strip()))
    assert forked["fork_session"] == parent_log.session_id
    child_id = forked["runs"][0]["agent_id"]
    child_pointer = home / "agents" / child_id / "current-session"
    child_log = SessionStore.read(find_session(home, child_pointer.read_text().strip()))
    assert child_log.header is not None
    header = child_log.header.details
    assert (header.parent_session, header.parent_entry) == (
        parent_log.session_id,
        forked["fork_entry"],
    )
    # the fork point is the parent's first turn's last entry (its "Noted." reply)
    point = next(e for e in parent_log.entries if e.id == forked["fork_entry"])
    assert "Noted." in json.dumps(point.model_dump(mode="json"))
    results = [e.details.result for e in parent_log.entries if isinstance(e, ToolResultEntry)]
    launches = [r.text for r in results if "subagent_launch" in r.text or "job" in r.text]
    assert any("there is nothing to fork" in t or "has none yet" in t for t in launches), launches
    assert any(f"at entry {forked['fork_entry']}" in t for t in launches), launches
