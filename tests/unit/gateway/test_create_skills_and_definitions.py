"""Issue 21 items 6 and 8 at the gateway: a create request's `skills` and `agent` (a definition),
checked with a clear 400, carried in the manifest to the kernel's KERNEL_SHARD_* variables."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shard_core.engine.state import shard_home
from shard_kernel.agent_env import read_agent_env
from shard_kernel.gateway.manifest import AgentManifest, ManifestStore
from shard_kernel.gateway.validation import BadRequestError, kernel_env, parse_create

REVIEWER = (
    "---\nname: reviewer\ndescription: Reviews.\nmodel: scripted/demo\nmode: plan\n---\nBe brief.\n"
)


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "shard-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNEL_SHARD_TRUST_PROJECT", raising=False)
    folder = tmp_path / "xdg" / "shard" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(REVIEWER)
    (tmp_path / "ws").mkdir()
    return tmp_path


def _saved(manifest: AgentManifest) -> AgentManifest:
    """Kept where the kernel reads its rules from (as the registry keeps every manifest)."""
    ManifestStore(shard_home(), logging.getLogger("test")).save(manifest)
    return manifest


def test_skills_are_accepted_and_reach_the_kernel(homes: Path) -> None:
    for name in ("code-review", "pdf"):
        skill = homes / "shard-home" / "skills" / name / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nBody.\n")
    command = parse_create({"cwd": str(homes / "ws"), "skills": ["code-review", "pdf"]})
    assert command.skills == ["code-review", "pdf"]
    manifest = AgentManifest(id="agent-x", name="x", cwd=command.cwd, skills=command.skills)
    env = kernel_env(_saved(manifest))
    assert env["KERNEL_SHARD_SKILLS"] == "code-review\npdf"
    assert read_agent_env({**env, "KERNEL_SHARD_CWD": str(homes)}).skills == ("code-review", "pdf")
    assert "KERNEL_SHARD_SKILLS" not in kernel_env(manifest.model_copy(update={"skills": []}))


@pytest.mark.parametrize("bad", ["../etc", "Code Review", "", "a/b"])
def test_a_skill_that_is_not_a_name_is_a_clear_400(homes: Path, bad: str) -> None:
    with pytest.raises(BadRequestError) as caught:
        parse_create({"cwd": str(homes / "ws"), "skills": ["ok", bad]})
    assert str(caught.value) == (
        f"skills: {bad!r} is not a skill name (kebab-case: a-z, 0-9, hyphens)"
    )


def test_an_agent_definition_fills_model_and_mode_and_reaches_the_kernel(homes: Path) -> None:
    command = parse_create({"cwd": str(homes / "ws"), "agent": "reviewer"})
    assert (command.agent, command.model, command.mode) == ("reviewer", "scripted/demo", "plan")
    explicit = parse_create({"cwd": str(homes / "ws"), "agent": "reviewer", "mode": "build"})
    assert explicit.mode == "build"
    manifest = AgentManifest(
        id="agent-x", name="x", cwd=command.cwd, mode=command.mode, agent_definition="reviewer"
    )
    env = kernel_env(_saved(manifest))
    assert env["KERNEL_SHARD_AGENT_DEFINITION"] == "reviewer"
    assert read_agent_env({**env, "KERNEL_SHARD_CWD": str(homes)}).agent_definition == "reviewer"


def test_an_unknown_or_untrusted_definition_is_a_clear_400(
    homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = homes / "ws" / ".shard" / "agents"
    project.mkdir(parents=True)
    (project / "local.md").write_text("---\ndescription: project one\n---\n")
    with pytest.raises(BadRequestError) as caught:
        parse_create({"cwd": str(homes / "ws"), "agent": "local"})
    message = str(caught.value)
    assert message.startswith("agent: no agent definition named 'local'; known: reviewer (skipped")
    assert "--trust-project (in a kernel: KERNEL_SHARD_TRUST_PROJECT=1)" in message
    with pytest.raises(BadRequestError, match="is not an agent definition name"):
        parse_create({"cwd": str(homes / "ws"), "agent": "../x"})
    monkeypatch.setenv("KERNEL_SHARD_TRUST_PROJECT", "1")
    assert parse_create({"cwd": str(homes / "ws"), "agent": "local"}).agent == "local"


def test_the_kernel_env_without_mode_leaves_it_to_the_definition(homes: Path) -> None:
    env = read_agent_env({"KERNEL_SHARD_CWD": str(homes), "KERNEL_SHARD_AGENT_DEFINITION": "r"})
    assert (env.mode, env.agent_definition, env.skills) == (None, "r", None)
