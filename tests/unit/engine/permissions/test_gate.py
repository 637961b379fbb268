"""RuleGate.authorize: decisions recorded before returning, asks answered once, fail closed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.engine.config import PermissionsConfig
from shard_core.engine.events import EventStream
from shard_core.engine.modes import PlanMode
from shard_core.engine.permissions import GrantStore, RuleGate
from shard_core.protocol.events import Event, PermissionRequestEvent, PermissionResolvedEvent
from shard_core.types import Allow, AllowAlways, Deny
from tests.unit.engine.permissions._support import Log, asked, rules


class Bridge:
    """A UI bridge that answers with `answer` (or raises it)."""

    def __init__(self, answer: PermissionAnswer | Exception) -> None:
        self.answer = answer
        self.prompts: list[PermissionPrompt] = []

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        self.prompts.append(prompt)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        return None

    async def confirm(self, title: str, message: str = "") -> bool | None:
        return None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        return None

    async def notify(self, title: str, message: str = "") -> None:
        return None


@pytest.fixture
def events() -> tuple[EventStream, list[Event]]:
    stream = EventStream("agent-1")
    seen: list[Event] = []
    stream.subscribe(seen.append)
    return stream, seen


def make_gate(log: Log, events: EventStream | None = None, **options) -> RuleGate:
    options.setdefault("rules", rules(allow=("Bash(git add:*)",), deny=("Bash(rm:*)",)))
    options.setdefault("has_responder", lambda: True)
    return RuleGate(grants=GrantStore("agent-1"), record=log.record, events=events, **options)


async def test_automatic_decisions_are_recorded(home: Path, query, log: Log) -> None:
    gate = make_gate(log)

    allowed = await gate.authorize(query("bash", command="git add x"))
    denied = await gate.authorize(query("bash", command="rm -rf y"))

    assert allowed.decision == Allow(rule="Bash(git add:*)")
    assert (allowed.source, allowed.decided_by) == ("rule", "Bash(git add:*)")
    assert denied.decision == Deny(
        reason="`rm -rf y` is denied by Bash(rm:*) (test)", rule="Bash(rm:*)"
    )
    assert [(e.decision, e.source, e.rule, e.tool_call_id) for e in log.entries] == [
        ("allow", "rule", "Bash(git add:*)", "call-1"),
        ("deny", "rule", "Bash(rm:*)", "call-1"),
    ]


async def test_default_policy_is_recorded_as_mode(home: Path, query, log: Log) -> None:
    outcome = await make_gate(log).authorize(query("read", path="a.txt"))

    assert (outcome.decision, outcome.source, outcome.decided_by) == (
        Allow(),
        "mode",
        "default policy",
    )


async def test_an_ask_answered_through_respond(home: Path, query, log: Log, events) -> None:
    stream, seen = events
    gate = make_gate(log, stream)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    result = gate.respond(request_id, "allow", "client-7", "interactive")
    outcome = await task

    assert result.accepted
    assert outcome.decision == Allow()
    assert (outcome.source, outcome.decided_by, outcome.request_id) == (
        "client",
        "client-7",
        request_id,
    )
    request, resolved = seen
    assert isinstance(request, PermissionRequestEvent)
    assert (request.request_id, request.tool, request.suggested_rule) == (
        request_id,
        "bash",
        "Bash(git push:*)",
    )
    assert request.prompt == "Allow bash: git push\nno rule allows `git push`"
    assert isinstance(resolved, PermissionResolvedEvent)
    assert (resolved.decision, resolved.decided_by, resolved.source) == (
        "allow",
        "client-7",
        "client",
    )
    assert [e.request_id for e in log.entries] == [request_id]


async def test_ten_concurrent_responders_one_decision(home: Path, query, log: Log, events) -> None:
    stream, seen = events
    entries_when_returned: list[int] = []

    async def record(details) -> None:
        await asyncio.sleep(0)  # let the other responders run while the decision is written
        await log.record(details)

    gate = RuleGate(
        rules=rules(),
        grants=GrantStore("agent-1"),
        record=record,
        events=stream,
        has_responder=lambda: True,
    )
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    async def answer(i: int):
        await asyncio.sleep(0)
        decision = ("allow", "deny", "allow_always")[i % 3]
        return gate.respond(request_id, decision, f"client-{i}", "interactive")

    results = await asyncio.gather(*(answer(i) for i in range(10)))
    outcome = await task
    entries_when_returned.append(len(log.entries))

    winners = [i for i, r in enumerate(results) if r.accepted]
    assert len(winners) == 1
    winner = f"client-{winners[0]}"
    assert entries_when_returned == [1]
    (entry,) = log.entries
    assert entry.decided_by == winner == outcome.decided_by
    for i, result in enumerate(results):
        if i != winners[0]:
            assert result.message.startswith(f"already decided by {winner} (")
    resolved = [e for e in seen if isinstance(e, PermissionResolvedEvent)]
    assert [e.decided_by for e in resolved] == [winner]


async def test_the_decision_is_recorded_before_authorize_returns(home: Path, query) -> None:
    order: list[str] = []

    async def record(details) -> None:
        order.append("record")

    gate = RuleGate(
        rules=rules(), grants=GrantStore("a"), record=record, has_responder=lambda: True
    )
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    gate.respond(await asked(gate), "allow", "c", "interactive")
    await task
    order.append("returned")

    assert order == ["record", "returned"]


async def test_observers_and_strangers_cannot_answer(home: Path, query, log: Log) -> None:
    gate = make_gate(log)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    observer = gate.respond(request_id, "allow", "watcher", "observer")
    unknown = gate.respond("perm-nope", "allow", "c", "interactive")
    nonsense = gate.respond(request_id, "maybe", "c", "interactive")

    assert not observer.accepted
    assert "observer clients cannot answer" in observer.message
    assert not unknown.accepted
    assert unknown.message == "no open permission request perm-nope"
    assert not nonsense.accepted
    assert "unknown decision 'maybe'" in nonsense.message
    assert gate.respond(request_id, "deny", "human", "interactive", reason="not now").accepted
    outcome = await task
    assert outcome.decision == Deny(reason="denied by human: not now")


async def test_allow_always_saves_the_suggested_grant(home: Path, query, log: Log) -> None:
    gate = make_gate(log)
    push = query("bash", command="git push origin main")
    task = asyncio.create_task(gate.authorize(push))

    gate.respond(await asked(gate), "allow_always", "client-1", "interactive")
    outcome = await task

    assert outcome.decision == AllowAlways(rule="Bash(git push:*)")
    assert [g.text for g in GrantStore("agent-1").grants()] == ["Bash(git push:*)"]
    again = await gate.authorize(push)
    assert (again.source, again.decided_by) == ("grant", "Bash(git push:*)")


async def test_a_bad_rule_in_an_answer_is_refused_and_the_question_stays_open(
    home: Path, query, log: Log
) -> None:
    gate = make_gate(log)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    refused = gate.respond(request_id, "allow_always", "c", "interactive", rule="Bash(")
    accepted = gate.respond(request_id, "allow_always", "c", "interactive", rule="Bash(git:*)")

    assert not refused.accepted
    assert "invalid permission rule 'Bash('" in refused.message
    assert accepted.accepted
    assert (await task).decision == AllowAlways(rule="Bash(git:*)")


async def test_allow_always_under_an_ask_rule_is_allow_once(home: Path, query, log: Log) -> None:
    gate = make_gate(log, rules=rules(allow=("Bash(git push:*)",), ask=("Bash(git push:*)",)))
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))

    gate.respond(await asked(gate), "allow_always", "c", "interactive", rule="Bash(git push:*)")
    outcome = await task

    assert outcome.decision == Allow()
    assert GrantStore("agent-1").grants() == []
    assert "an ask rule always asks" in (log.entries[0].reason or "")


async def test_withdraw_denies_with_source_abort(home: Path, query, log: Log) -> None:
    gate = make_gate(log)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    assert gate.withdraw(request_id, "user pressed stop").accepted
    outcome = await task

    assert outcome.decision == Deny(reason="withdrawn: user pressed stop")
    assert outcome.source == "abort"
    assert not gate.respond(request_id, "allow", "late", "interactive").accepted


async def test_a_cancelled_turn_withdraws_its_question(home: Path, query, log: Log, events) -> None:
    stream, seen = events
    gate = make_gate(log, stream)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    resolved = seen[-1]
    assert isinstance(resolved, PermissionResolvedEvent)
    assert (resolved.request_id, resolved.decision, resolved.source) == (
        request_id,
        "deny",
        "abort",
    )
    assert gate.pending.prompts() == []


async def test_record_failure_fails_closed(home: Path, query, log: Log, events) -> None:
    stream, seen = events
    log.fail = OSError("disk full")
    gate = make_gate(log, stream)

    automatic = await gate.authorize(query("bash", command="git add x"))
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    gate.respond(await asked(gate), "allow_always", "c", "interactive")
    asked_outcome = await task

    for outcome in (automatic, asked_outcome):
        assert isinstance(outcome.decision, Deny)
        assert outcome.decision.reason == "could not record the decision durably: disk full"
    assert GrantStore("agent-1").grants() == []  # the grant was taken back
    resolved = [e for e in seen if isinstance(e, PermissionResolvedEvent)]
    assert [e.decision for e in resolved] == ["deny"]


async def test_evaluation_errors_fail_closed(home: Path, query, log: Log, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("shard_core.engine.permissions.gate.explain", broken)

    outcome = await make_gate(log).authorize(query("read", path="a"))

    assert outcome.decision == Deny(reason="could not evaluate the permission rules: boom")
    assert log.entries[0].decision == "deny"


async def test_the_ui_bridge_can_answer(home: Path, query, log: Log) -> None:
    bridge = Bridge(PermissionAnswer("allow", "terminal"))
    gate = make_gate(log, ui=bridge, has_responder=None)

    outcome = await gate.authorize(query("bash", command="git push"))

    assert (outcome.decision, outcome.decided_by, outcome.source) == (Allow(), "terminal", "client")
    assert bridge.prompts[0].suggested_rule == "Bash(git push:*)"


async def test_a_broken_bridge_is_not_a_decision(home: Path, query, log: Log) -> None:
    gate = make_gate(log, ui=Bridge(RuntimeError("tty gone")), timeout=0.05)

    outcome = await gate.authorize(query("bash", command="git push"))

    assert outcome.source == "timeout"
    assert isinstance(outcome.decision, Deny)


async def test_evaluate_has_no_side_effects(home: Path, query, log: Log, events) -> None:
    stream, seen = events
    gate = make_gate(log, stream)

    decision = gate.evaluate(query("bash", command="git push"))

    assert decision.kind == "ask"
    assert decision.suggested_rule == "Bash(git push:*)"
    assert (log.entries, seen, gate.pending.prompts()) == ([], [], [])
    assert not (home / "agents").exists()


async def test_plan_mode_denies_mutating_tools(home: Path, query, log: Log) -> None:
    gate = make_gate(log, mode=PlanMode())

    edit = await gate.authorize(query("edit", path="a.py"))
    read = await gate.authorize(query("read", path="a.py"))

    assert isinstance(edit.decision, Deny)
    assert edit.source == "mode"
    assert "plan mode is read-only" in edit.decision.reason
    assert read.decision == Allow()


async def test_plan_mode_beats_allow_rules_and_grants(home: Path, query, log: Log) -> None:
    GrantStore("agent-1").add("Bash(git push:*)", "c")
    gate = make_gate(log, mode=PlanMode())

    assert gate.evaluate(query("bash", command="git add x")).kind == "deny"
    assert gate.evaluate(query("bash", command="git push")).kind == "deny"


async def test_nothing_escapes_authorize(home: Path, query, log: Log, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise KeyError("details")

    monkeypatch.setattr("shard_core.engine.permissions.gate.decision_details", broken)

    outcome = await make_gate(log).authorize(query("bash", command="git add x"))

    assert outcome.decision == Deny(reason="permission check failed: 'details'")
    assert (outcome.source, outcome.decided_by) == ("rule", "gate")


async def test_from_config_wires_every_source(home: Path, query, log: Log, ws: Path) -> None:
    config = PermissionsConfig(
        deny=["Bash(rm:*)"], headless_policy="allow_if_rule_matches", timeout=5
    )

    gate = RuleGate.from_config(
        config, agent_id="agent-1", cwd=ws, record=log.record, allow=("Bash(make:*)",)
    )

    assert gate.asker.headless_policy == "allow_if_rule_matches"
    assert gate.asker.timeout == 5
    assert gate.evaluate(query("bash", command="rm x")).kind == "deny"
    assert gate.evaluate(query("bash", command="make")).kind == "allow"
