"""GrantStore: allow-always rules persist per agent, owner-only, and can be revoked."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from shard_core.engine.permissions import GrantStore, RuleGate, explain
from shard_core.types.errors import ConfigError
from tests.unit.engine.permissions._support import Log, rules


def test_grants_survive_a_new_store(home: Path) -> None:
    GrantStore("agent-1").add("Bash(git push:*)", "client-a")

    again = GrantStore("agent-1")

    assert [(g.text, g.granted_by) for g in again.grants()] == [("Bash(git push:*)", "client-a")]
    path = home / "agents" / "agent-1" / "permission-grants.json"
    assert again.path == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["grants"][0]["rule"] == "Bash(git push:*)"


def test_grants_are_per_agent(home: Path) -> None:
    GrantStore("agent-1").add("Bash(make:*)", "c")

    assert GrantStore("agent-2").grants() == []


def test_add_is_idempotent_and_validates(home: Path) -> None:
    store = GrantStore("agent-1")
    first = store.add("Bash(make:*)", "a")

    assert store.add("Bash(make:*)", "b") == first
    assert len(store.grants()) == 1
    with pytest.raises(ConfigError, match="invalid permission rule"):
        store.add("Bash(", "a")


def test_revoked_grant_asks_again(home: Path, query, log: Log) -> None:
    store = GrantStore("agent-1")
    store.add("Bash(git push:*)", "client")
    gate = RuleGate(rules=rules(), grants=GrantStore("agent-1"), record=log.record)
    push = query("bash", command="git push origin main")

    assert gate.evaluate(push).kind == "allow"
    assert store.revoke("Bash(git push:*)") is True
    assert store.revoke("Bash(git push:*)") is False

    assert gate.evaluate(push).kind == "ask"  # the gate's own store notices the file changed


def test_grant_allows_through_the_grant_layer(home: Path, query) -> None:
    GrantStore("agent-1").add("Bash(git push:*)", "client")

    found = explain(
        query("bash", command="git push"), rules(), grants=GrantStore("agent-1").rules()
    )

    assert (found.decision, found.by, found.rule) == ("allow", "grant", "Bash(git push:*)")


def test_deny_rules_beat_grants(home: Path, query) -> None:
    grants = [GrantStore("agent-1").add("Bash(git push:*)", "c").rule]

    found = explain(query("bash", command="git push"), rules(deny=("Bash(git:*)",)), grants=grants)

    assert found.decision == "deny"


def test_a_corrupt_file_means_no_grants_and_is_never_overwritten(home: Path) -> None:
    path = home / "agents" / "agent-1" / "permission-grants.json"
    path.parent.mkdir(parents=True)
    path.write_text("{torn")

    store = GrantStore("agent-1")

    assert store.grants() == []
    assert store.problem is not None
    assert "unreadable" in store.problem
    with pytest.raises(ConfigError, match="fix or remove the file"):
        store.add("Bash(ls:*)", "c")
    assert path.read_text() == "{torn"


@pytest.mark.parametrize("agent_id", ["", "..", "a/b"])
def test_agent_ids_cannot_escape(home: Path, agent_id: str) -> None:
    with pytest.raises(ConfigError, match="invalid agent id"):
        GrantStore(agent_id)
