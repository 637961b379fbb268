"""The headless policy: what happens to an ask when no one answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from shard_core.contracts import PermissionAnswer
from shard_core.engine.events import EventStream
from shard_core.engine.permissions import GrantStore, RuleGate
from shard_core.protocol.events import Event
from shard_core.types import Allow, Deny
from tests.unit.engine.permissions._support import Log, asked, rules


def make_gate(log: Log, **options) -> RuleGate:
    options.setdefault("rules", rules())
    return RuleGate(grants=GrantStore("agent-1"), record=log.record, **options)


async def test_no_responder_denies_a_write_and_allows_a_read(home: Path, query, log: Log) -> None:
    gate = make_gate(log, has_responder=lambda: False)

    write = await gate.authorize(query("write", path="a.txt"))
    # A read-only call that asks only because no rule covers it (an outside-workspace read is
    # denied instead: test_hardening_headless.py).
    read = await gate.authorize(query("mcp__docs__search", read_only=True))

    assert write.decision == Deny(reason="denied: no one to ask (headless policy: deny)")
    assert (write.source, write.decided_by) == ("headless", "headless policy: deny")
    assert read.decision == Allow()
    assert read.source == "headless"
    assert [e.source for e in log.entries] == ["headless", "headless"]


async def test_timeout_denies_a_write_and_allows_a_read(home: Path, query, log: Log) -> None:
    stream = EventStream("agent-1")
    seen: list[Event] = []
    stream.subscribe(seen.append)
    gate = make_gate(log, has_responder=lambda: True, timeout=0.05, events=stream)

    write = await gate.authorize(query("write", path="a.txt"))
    read = await gate.authorize(query("mcp__docs__search", read_only=True))

    assert write.decision == Deny(reason="denied: no answer within 0.05s (headless policy: deny)")
    assert write.source == "timeout"
    assert read.decision == Allow()
    assert read.source == "timeout"
    assert gate.pending.prompts() == []
    assert [(e.type, getattr(e, "source", None)) for e in seen] == [
        ("permission_request", None),
        ("permission_resolved", "timeout"),
        ("permission_request", None),
        ("permission_resolved", "timeout"),
    ]


async def test_deny_policy_names_the_rule_that_would_allow(home: Path, query, log: Log) -> None:
    both = rules(allow=("Bash(npm test:*)",), ask=("Bash(npm test:*)",))
    gate = make_gate(log, rules=both, has_responder=lambda: False)

    outcome = await gate.authorize(query("bash", command="npm test"))

    assert outcome.decision == Deny(
        reason="denied: no one to ask; rule Bash(npm test:*) would allow it (headless policy: deny)"
    )


async def test_allow_if_rule_matches(home: Path, query, log: Log) -> None:
    both = rules(allow=("Bash(npm test:*)",), ask=("Bash(npm test:*)", "Bash(make:*)"))
    gate = make_gate(
        log, rules=both, has_responder=lambda: False, headless_policy="allow_if_rule_matches"
    )

    allowed = await gate.authorize(query("bash", command="npm test"))
    no_rule = await gate.authorize(query("bash", command="make all"))
    outside_read = await gate.authorize(query("read", path="/etc/hosts"))

    assert allowed.decision == Allow(rule="Bash(npm test:*)")
    assert log.entries[0].reason == (
        "allowed: no one to ask; rule Bash(npm test:*) allows it "
        "(headless policy: allow_if_rule_matches)"
    )
    assert no_rule.decision == Deny(
        reason="denied: no one to ask and no allow rule matches "
        "(headless policy: allow_if_rule_matches)"
    )
    assert isinstance(outside_read.decision, Deny)


async def test_queue_waits_for_a_late_responder(home: Path, query, log: Log) -> None:
    attached = False
    gate = make_gate(log, has_responder=lambda: attached, headless_policy="queue", timeout=0.01)
    task = asyncio.create_task(gate.authorize(query("write", path="a.txt")))
    request_id = await asked(gate)

    for _ in range(50):
        await asyncio.sleep(0)
    await asyncio.sleep(0.03)  # longer than the timeout: queue never times out
    assert not task.done()

    attached = True
    assert gate.respond(request_id, "allow", "came-back", "interactive").accepted
    outcome = await task

    assert (outcome.decision, outcome.decided_by, outcome.source) == (
        Allow(),
        "came-back",
        "client",
    )


async def test_a_client_answer_beats_the_fallback(home: Path, query, log: Log) -> None:
    gate = make_gate(log, has_responder=lambda: True, timeout=60)
    task = asyncio.create_task(gate.authorize(query("write", path="a.txt")))
    request_id = await asked(gate)

    gate.respond(request_id, "allow", "quick", "interactive")
    late = gate.pending.resolve(request_id, PermissionAnswer("deny", "headless"))

    assert not late.accepted
    assert (await task).decided_by == "quick"
