"""AgentDefinitionLoader: agents/*.md front-matter, precedence user → project, trust, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.engine.agent_definitions import (
    AgentDefinition,
    load_agent_definitions,
    parse_agent_definition,
)
from shard_core.types.errors import ConfigError

REVIEWER = """---
name: reviewer
description: Reviews a change
  without editing it.
model: scripted/demo
mode: plan
tools: Read, grep, find
skills: [code-review]
permissions:
  allow: ["Bash(git diff:*)"]
  deny: ["Bash(rm:*)"]
names: [Ada, Grace]
color: blue
---

You review diffs. Never edit files.
"""


def write(folder: Path, file: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(text)
    return path


def definition(name: str, description: str, body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def test_every_front_matter_key_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "reviewer.md"
    parsed = parse_agent_definition(REVIEWER, path, "user")
    assert isinstance(parsed, AgentDefinition), parsed
    assert parsed == AgentDefinition(
        name="reviewer",
        description="Reviews a change without editing it.",
        prompt="You review diffs. Never edit files.",
        path=path,
        layer="user",
        model="scripted/demo",
        mode="plan",
        tools=("Read", "grep", "find"),
        skills=("code-review",),
        allow=("Bash(git diff:*)",),
        deny=("Bash(rm:*)",),
        names=("Ada", "Grace"),
        metadata={"color": "blue"},
    )
    rules = parsed.rules()
    assert [r.text for r in rules.allow] == ["Bash(git diff:*)"]
    assert rules.deny[0].source == f"agent definition reviewer ({path})"


def test_name_defaults_to_the_file_stem_and_absent_keys_mean_no_limit(tmp_path: Path) -> None:
    parsed = parse_agent_definition("---\ndescription: d\n---\n", tmp_path / "helper.md")
    assert isinstance(parsed, AgentDefinition)
    assert (parsed.name, parsed.tools, parsed.skills, parsed.prompt) == ("helper", None, None, "")
    assert parsed.prompt_text() == ""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("no front matter", "no front-matter: x.md must start with a `---` line"),
        ("---\nname: x\n", "the front-matter has no closing `---` line"),
        ("---\nname: Bad Name\ndescription: d\n---\n", "name 'Bad Name' is not kebab-case"),
        ("---\nname: ../etc\ndescription: d\n---\n", "name '../etc' is not kebab-case"),
        ("---\nname: x\n---\n", "description is missing or empty"),
        ("---\ndescription: d\ntools: 3\n---\n", "tools must be a list of names"),
        ("---\ndescription: d\nmodel: [a]\n---\n", "model must be a non-empty string"),
        ("---\ndescription: d\npermissions: [a]\n---\n", "permissions must be a mapping"),
        ("---\ndescription: d\npermissions: {grant: [x]}\n---\n", "permissions.grant: use allow"),
        ("---\ndescription: d\npermissions: {allow: ['Nope(']}\n---\n", "permissions: "),
        ("---\ndescription: d\nskills: [../x]\n---\n", "skills ['../x']: skill names are"),
        ("---\ndescription: d\nbackend: [acp]\n---\n", "backend must be a mapping with one"),
        ("---\ndescription: d\nbackend: {acp: x, b: y}\n---\n", "backend must be a mapping"),
        ("---\ndescription: d\nbackend: {A C P: x}\n---\n", "backend kind 'A C P' is not"),
    ],
)
def test_bad_definitions_say_why(text: str, error: str) -> None:
    parsed = parse_agent_definition(text, Path("x.md"))
    assert isinstance(parsed, str)
    assert parsed.startswith(error)


def test_precedence_legacy_then_config_then_project_and_trust(tmp_path: Path) -> None:
    home, config, ws = tmp_path / "home", tmp_path / "config", tmp_path / "repo" / "sub"
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(home / "agents", "a.md", definition("helper", "legacy"))
    write(home / "agents", "only-legacy.md", definition("old", "legacy only"))
    write(config / "agents", "b.md", definition("helper", "config"))
    write(tmp_path / "repo" / ".shard" / "agents", "c.md", definition("helper", "repo root"))
    write(ws / ".shard" / "agents", "d.md", definition("helper", "cwd"))
    (home / "agents" / "agent-123").mkdir()  # agent state folders live beside definitions

    untrusted = load_agent_definitions(ws, home=home, config=config, trusted=False)
    assert untrusted.names() == ["helper", "old"]
    assert untrusted.require("helper").description == "config"
    assert untrusted.diagnostics == [
        f"skipped {tmp_path / 'repo' / '.shard' / 'agents'} (1 file): project agent "
        "definitions need --trust-project",
        f"skipped {ws / '.shard' / 'agents'} (1 file): project agent definitions need "
        "--trust-project",
    ]
    trusted = load_agent_definitions(ws, home=home, config=config, trusted=True)
    found = trusted.require("helper")
    assert (found.description, found.layer) == ("cwd", "project")
    assert trusted.diagnostics == []


def test_an_unknown_name_is_an_error_naming_the_known_ones_and_the_trust_flag(
    tmp_path: Path,
) -> None:
    write(tmp_path / "config" / "agents", "a.md", definition("helper", "d"))
    write(tmp_path / "ws" / ".shard" / "agents", "b.md", definition("secret", "d"))
    found = load_agent_definitions(
        tmp_path / "ws", home=tmp_path / "home", config=tmp_path / "config", trusted=False
    )
    with pytest.raises(ConfigError) as info:
        found.require("secret")
    assert str(info.value).startswith("no agent definition named 'secret'; known: helper (skipped")
    assert "--trust-project" in str(info.value)


def test_a_broken_file_is_skipped_with_a_diagnostic_and_the_rest_load(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "agents"
    write(folder, "good.md", definition("good", "d"))
    bad = write(folder, "bad.md", "---\nname: bad\n---\n")
    write(folder, "notes.txt", "not a definition")
    found = load_agent_definitions(
        tmp_path, home=tmp_path / "home", config=tmp_path / "config", trusted=False
    )
    assert found.names() == ["good"]
    assert found.diagnostics == [f"skipped agent definition {bad}: description is missing or empty"]


def test_a_backend_is_its_kind_and_spec_as_written() -> None:
    text = "---\ndescription: d\nbackend: {acp: [opencode, acp]}\n---\n"
    parsed = parse_agent_definition(text, Path("coder.md"))
    assert isinstance(parsed, AgentDefinition)
    assert parsed.backend == ("acp", ["opencode", "acp"])
    assert "backend" not in parsed.metadata
    plain = parse_agent_definition("---\ndescription: d\n---\n", Path("x.md"))
    assert isinstance(plain, AgentDefinition)
    assert plain.backend is None
