"""Workspace grants: "always allow" for every agent whose cwd is the same folder.

Two real gates with different agent ids share one folder's grants file under SHARD_HOME; a gate
in another folder does not see it; revoking removes it for both; a deny rule still wins.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from shard_core.engine.events import EventStream
from shard_core.engine.permissions import GrantStore, RuleGate
from shard_core.engine.permissions.grants import workspace_key
from shard_core.protocol.events import Event, PermissionResolvedEvent
from shard_core.types import AllowAlways, Deny
from tests.unit.engine.permissions._support import Log, asked, rules

PUSH = "Bash(git push:*)"


def gate_in(
    agent_id: str, cwd: Path, log: Log, events: EventStream | None = None, **options
) -> RuleGate:
    options.setdefault("rules", rules(deny=("Bash(git push --force:*)",)))
    options.setdefault("timeout", 0.0)
    return RuleGate(
        grants=GrantStore(agent_id),
        workspace_grants=GrantStore.for_workspace(cwd),
        record=log.record,
        events=events,
        has_responder=lambda: True,
        **options,
    )


async def grant_push(gate: RuleGate, query, scope: str) -> AllowAlways | object:
    task = asyncio.create_task(gate.authorize(query("bash", command="git push origin main")))
    result = gate.respond(
        await asked(gate), "allow_always", "c1", "interactive", rule=PUSH, scope=scope
    )
    assert result.accepted, result.message
    return (await task).decision


async def test_a_second_agent_in_the_folder_honours_a_workspace_grant(
    home: Path, ws: Path, query, log: Log
) -> None:
    stream = EventStream("agent-1")
    seen: list[Event] = []
    stream.subscribe(seen.append)
    first = gate_in("agent-1", ws, log, stream)

    assert await grant_push(first, query, "workspace") == AllowAlways(rule="Bash(git push:*)")

    resolved = [e for e in seen if isinstance(e, PermissionResolvedEvent)][-1]
    assert resolved.scope == "workspace"
    assert resolved.reason is not None
    assert resolved.reason.startswith("saved for this workspace: Bash(git push:*)")
    assert log.entries[-1].scope == "workspace"
    assert GrantStore("agent-1").grants() == []  # not saved as the agent's own
    saved = home / "workspaces" / workspace_key(ws) / "permission-grants.json"
    on_disk = json.loads(saved.read_text())
    assert on_disk["workspace"] == str(ws.resolve())
    assert [g["rule"] for g in on_disk["grants"]] == ["Bash(git push:*)"]
    assert saved.stat().st_mode & 0o077 == 0

    second = gate_in("agent-2", ws, log)  # never asked: timeout 0 would deny if it asked
    outcome = await second.authorize(query("bash", command="git push origin dev"))
    assert (outcome.source, outcome.decided_by) == ("grant", "Bash(git push:*)")
    assert not second.pending.prompts()


async def test_another_folder_still_asks(home: Path, ws: Path, tmp_path: Path, query, log) -> None:
    await grant_push(gate_in("agent-1", ws, log), query, "workspace")
    other = tmp_path / "other"
    other.mkdir()

    outcome = await gate_in("agent-3", other, log).authorize(query("bash", command="git push"))

    assert outcome.source == "timeout"  # it asked; nobody answered in time
    assert isinstance(outcome.decision, Deny)


async def test_agent_scope_stays_with_the_agent(home: Path, ws: Path, query, log: Log) -> None:
    await grant_push(gate_in("agent-1", ws, log), query, "agent")

    assert [g.text for g in GrantStore("agent-1").grants()] == ["Bash(git push:*)"]
    assert GrantStore.for_workspace(ws).grants() == []
    outcome = await gate_in("agent-2", ws, log).authorize(query("bash", command="git push"))
    assert outcome.source == "timeout"


async def test_revoking_removes_it_for_every_agent(home: Path, ws: Path, query, log) -> None:
    await grant_push(gate_in("agent-1", ws, log), query, "workspace")
    second = gate_in("agent-2", ws, log)

    assert second.workspace_grants is not None
    assert second.workspace_grants.revoke("Bash(git push:*)")

    outcome = await gate_in("agent-1", ws, log).authorize(query("bash", command="git push"))
    assert outcome.source == "timeout"


async def test_a_deny_rule_beats_a_workspace_grant(home: Path, ws: Path, query, log) -> None:
    await grant_push(gate_in("agent-1", ws, log), query, "workspace")

    outcome = await gate_in("agent-2", ws, log).authorize(
        query("bash", command="git push --force origin main")
    )

    assert outcome.source == "rule"
    assert isinstance(outcome.decision, Deny)


async def test_an_unknown_scope_is_refused_and_the_question_stays_open(
    home: Path, ws: Path, query, log: Log
) -> None:
    gate = gate_in("agent-1", ws, log, timeout=60.0)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    refused = gate.respond(request_id, "allow_always", "c", "interactive", scope="everyone")
    assert not refused.accepted
    assert "unknown grant scope 'everyone'" in refused.message
    assert gate.respond(request_id, "deny", "c", "interactive").accepted
    assert isinstance((await task).decision, Deny)
