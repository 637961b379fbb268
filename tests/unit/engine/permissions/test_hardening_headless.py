"""Issue 20 item 7: defence in depth on headless deny — reads outside the workspace are not safe.

With the headless policy `deny`, a read-only tool call whose path is outside the workspace was
allowed by the policy (only the tool's own containment then refused it). The policy now denies
it, on no responder and on timeout alike, and interactively the gate asks rather than allows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.engine.permissions import GrantStore, RuleGate, explain
from shard_core.types import Allow, Deny
from tests.unit.engine.permissions._support import Log, rules


def headless_gate(log: Log, book=None, **options) -> RuleGate:
    options.setdefault("has_responder", lambda: False)
    return RuleGate(
        rules=book or rules(), grants=GrantStore("agent-1"), record=log.record, **options
    )


@pytest.fixture
def outside_link(ws: Path, tmp_path: Path) -> str:
    secret = tmp_path / "secret"
    secret.write_text("SECRET\n")
    (ws / "link").symlink_to(secret)
    return "link"


@pytest.mark.parametrize(
    ("tool", "path"),
    [
        ("read", "/etc/hosts"),
        ("read", "../elsewhere"),
        ("read", "~/.ssh/id_rsa"),
        ("grep", "/etc"),
        ("find", ".."),
        ("ls", "/"),
    ],
)
async def test_headless_deny_denies_a_read_outside_the_workspace(
    home: Path, query, log: Log, tool: str, path: str
) -> None:
    outcome = await headless_gate(log).authorize(query(tool, path=path))

    assert isinstance(outcome.decision, Deny)
    assert outcome.decision.reason.startswith("denied: no one to ask; ")
    assert "outside the workspace" in outcome.decision.reason
    assert (outcome.source, outcome.decided_by) == ("headless", "headless policy: deny")


async def test_headless_deny_denies_a_read_through_a_symlink_out(
    home: Path, query, log: Log, outside_link: str
) -> None:
    outcome = await headless_gate(log).authorize(query("read", path=outside_link))

    assert isinstance(outcome.decision, Deny)


async def test_timeout_denies_a_read_outside_the_workspace(home: Path, query, log: Log) -> None:
    gate = headless_gate(log, has_responder=lambda: True, timeout=0.01)

    outcome = await gate.authorize(query("read", path="/etc/hosts"))

    assert isinstance(outcome.decision, Deny)
    assert outcome.source == "timeout"


async def test_headless_deny_denies_a_read_under_an_ask_rule(home: Path, query, log: Log) -> None:
    gate = headless_gate(log, rules(ask=("Read(.env)",)))

    outcome = await gate.authorize(query("read", path=".env"))

    assert isinstance(outcome.decision, Deny)


async def test_allow_if_rule_matches_still_denies_an_unnamed_outside_read(
    home: Path, query, log: Log
) -> None:
    gate = RuleGate(
        rules=rules(allow=("Read",)),
        grants=GrantStore("agent-1"),
        record=log.record,
        has_responder=lambda: False,
        headless_policy="allow_if_rule_matches",
    )

    outcome = await gate.authorize(query("read", path="/etc/hosts"))

    assert isinstance(outcome.decision, Deny)


def test_interactive_asks_for_a_read_outside_the_workspace(query, outside_link: str) -> None:
    for path in ("/etc/hosts", "../x", "~/.ssh/id_rsa", outside_link):
        assert explain(query("read", path=path), rules()).decision == "ask"


async def test_controls_inside_reads_and_named_outside_reads_are_allowed(
    home: Path, query, log: Log
) -> None:
    gate = headless_gate(log, rules(allow=("Read(/etc/hosts)",)))

    inside = await gate.authorize(query("read", path="a.txt"))
    named = await gate.authorize(query("read", path="/etc/hosts"))
    unruled = await gate.authorize(query("mcp__docs__search", read_only=True))

    assert inside.decision == Allow()
    assert named.decision == Allow(rule="Read(/etc/hosts)")
    assert unruled.decision == Allow()
