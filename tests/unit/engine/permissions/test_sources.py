"""Rule sources: config, user and project rule files, flags; project allow rules need trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shard_core.engine.config import PermissionsConfig
from shard_core.engine.permissions import explain, load_rules
from shard_core.engine.permissions.sources import add_agent_rule
from shard_core.types.errors import ConfigError


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_every_source_is_loaded_and_labelled(ws: Path, home: Path) -> None:
    _write(ws / ".shard/rules/team.json", {"deny": ["Bash(curl:*)"], "ask": ["Edit(setup.py)"]})
    _write(home / "rules/mine.json", {"allow": ["Bash(make:*)"]})
    config = PermissionsConfig(allow=["Read"], deny=["Bash(rm:*)"])

    found = load_rules(ws, config, allow=["Bash(npm test)"], deny=["Bash(git push:*)"])

    assert [(r.text, r.source) for r in found.deny] == [
        ("Bash(git push:*)", "--deny flag"),
        ("Bash(curl:*)", f"project rules {ws / '.shard/rules/team.json'}"),
        ("Bash(rm:*)", f"config file {home.parent / 'xdg/shard/config.json'}"),
    ]
    assert [r.text for r in found.allow] == ["Bash(npm test)", "Bash(make:*)", "Read"]
    assert [r.text for r in found.ask] == ["Edit(setup.py)"]
    assert found.diagnostics == ()


def test_project_allow_rules_need_trust(ws: Path, home: Path, query) -> None:
    path = _write(ws / ".shard/rules/a.json", {"allow": ["Bash(curl:*)"], "deny": ["Bash(rm:*)"]})

    untrusted = load_rules(ws)
    trusted = load_rules(ws, trust_project=True)

    assert untrusted.allow == ()
    assert [r.text for r in untrusted.deny] == ["Bash(rm:*)"]
    assert untrusted.diagnostics == (
        f"{path}: skipped 1 allow rule (Bash(curl:*)): project rules allow nothing "
        "without project trust (--trust-project)",
    )
    assert [r.text for r in trusted.allow] == ["Bash(curl:*)"]
    assert explain(query("bash", command="curl x"), untrusted).decision == "ask"
    assert explain(query("bash", command="curl x"), trusted).decision == "allow"


def test_project_rules_up_to_the_git_root(tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo / ".shard/rules/root.json", {"deny": ["Bash(rm:*)"]})
    _write(tmp_path / ".shard/rules/above.json", {"deny": ["Bash(curl:*)"]})
    (repo / "pkg").mkdir()

    found = load_rules(repo / "pkg")

    assert [r.text for r in found.deny] == ["Bash(rm:*)"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "invalid JSON at line 1"),
        ('["Bash"]', "expected {"),
        ('{"allow": "Bash"}', "allow: Input should be a valid list"),
        ('{"allow": [1]}', "allow.0: Input should be a valid string"),
        ('{"alow": []}', "alow: Extra inputs are not permitted"),
        ('{"deny": ["Bash("]}', "invalid permission rule 'Bash(': missing ')'"),
    ],
)
def test_bad_rule_files_are_clear_errors(ws: Path, home: Path, content, problem) -> None:
    path = _write(ws / ".shard/rules/bad.json", content)

    with pytest.raises(ConfigError) as caught:
        load_rules(ws)

    assert str(path) in str(caught.value)
    assert problem in str(caught.value)


def test_bad_config_rule_names_rule_and_source(ws: Path, home: Path) -> None:
    pattern = r"'Edit\(\)'.*empty path pattern \(from config file .*config.json\)"
    with pytest.raises(ConfigError, match=pattern):
        load_rules(ws, PermissionsConfig(allow=["Edit()"]))


def test_a_bad_flag_is_named(ws: Path, home: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"'Bash\(ls': missing '\)' at the end \(from --allow flag\)"
    ):
        load_rules(ws, allow=["Bash(ls"])


def test_an_agents_own_rules_are_saved_once_and_loaded_for_it_only(ws: Path, home: Path) -> None:
    added = add_agent_rule("a1", "deny", "Edit(calc.py)")
    again = add_agent_rule("a1", "deny", "Edit(calc.py)")

    own = home / "agents" / "a1" / "rules.json"
    assert json.loads(own.read_text()) == {"deny": ["Edit(calc.py)"]}
    assert own.stat().st_mode & 0o777 == 0o600
    assert [r.text for r in added.deny] == [r.text for r in again.deny] == ["Edit(calc.py)"]
    mine = load_rules(ws, agent_id="a1")
    assert [(r.text, r.source) for r in mine.deny] == [
        ("Edit(calc.py)", f"this agent's rules {own}")
    ]
    assert load_rules(ws, agent_id="a2").deny == ()
    assert load_rules(ws).deny == ()


def test_an_unreadable_agent_rule_file_is_never_overwritten(ws: Path, home: Path) -> None:
    own = _write(home / "agents" / "a1" / "rules.json", "{not json")

    with pytest.raises(ConfigError, match="invalid JSON"):
        add_agent_rule("a1", "deny", "Bash(rm:*)")
    with pytest.raises(ConfigError, match="invalid agent id"):
        add_agent_rule("../x", "deny", "Bash(rm:*)")

    assert own.read_text() == "{not json"
