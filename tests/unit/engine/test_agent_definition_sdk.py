"""create_agent(agent_definition=...): every front-matter key changes the agent built from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types.errors import ConfigError
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.skills.conftest import write_skill

REVIEWER = """---
name: reviewer
description: Reviews without editing.
model: fn/reviewer-model
mode: plan
tools: Read, grep, load_skill, no-such-tool
skills: [code-review]
permissions:
  allow: ["Bash(git diff:*)"]
---
You review diffs. Never edit files.
"""


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "shard"


async def _agent(
    tmp_path: Path, provider: FunctionProvider, models: list[str] | None = None, **kw: Any
) -> Agent:
    """An agent whose `fn/...` provider records the model names it was asked for."""
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    asked = models if models is not None else []

    def fn(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda model: asked.append(model) or provider)

    kw.setdefault("model", None)
    return await create_agent(
        cwd=ws,
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        extensions=[("test.fn", fn)],
        **kw,
    )


async def test_a_definition_shapes_model_mode_tools_rules_prompt_and_skills(
    tmp_path: Path, config_home: Path
) -> None:
    (config_home / "agents").mkdir(parents=True)
    (config_home / "agents" / "reviewer.md").write_text(REVIEWER)
    skills = tmp_path / "home" / "skills"
    write_skill(skills, "a", "code-review", "Review code.", "CHECK THE TESTS FIRST")
    write_skill(skills, "b", "release-notes", "Write notes.", "NOTES BODY")
    provider = FunctionProvider(scripted("looks fine"))
    diagnostics: list[str] = []
    models: list[str] = []
    agent = await _agent(
        tmp_path, provider, models, agent_definition="reviewer", diagnostics=diagnostics
    )
    try:
        await agent.run("review the last commit")
    finally:
        await agent.close()

    assert agent.definition is not None
    assert agent.definition.name == "reviewer"
    assert agent.definitions.names() == ["reviewer"]
    assert models == ["reviewer-model"]
    assert agent.session.mode == "plan"
    request = provider.requests[0]
    assert sorted(t.name for t in request.tools) == ["grep", "load_skill", "read"]
    names = [s.name for s in request.system]
    assert names[:2] == ["identity", "agent:reviewer"]
    assert "You review diffs. Never edit files." in request.system[1].text
    catalog = next(s.text for s in request.system if s.name == "skills:catalog")
    assert "code-review" in catalog
    assert "release-notes" not in catalog
    preloaded = next(s.text for s in request.system if s.name == "skills:preloaded")
    assert "CHECK THE TESTS FIRST" in preloaded
    assert "NOTES BODY" not in preloaded
    allow = [(r.text, r.source) for r in agent.gate.rules.allow]
    path = config_home / "agents" / "reviewer.md"
    assert ("Bash(git diff:*)", f"agent definition reviewer ({path})") in allow
    assert "agent definition reviewer: no tool named no-such-tool" in diagnostics


async def test_explicit_model_and_mode_win_over_the_definition(
    tmp_path: Path, config_home: Path
) -> None:
    (config_home / "agents").mkdir(parents=True)
    (config_home / "agents" / "reviewer.md").write_text(REVIEWER)
    models: list[str] = []
    agent = await _agent(
        tmp_path,
        FunctionProvider(scripted("ok")),
        models,
        agent_definition="reviewer",
        model="fn/explicit",
        mode="build",
    )
    await agent.close()
    assert (agent.session.mode, models) == ("build", ["explicit"])


async def test_without_a_definition_every_tool_stays(tmp_path: Path, config_home: Path) -> None:
    provider = FunctionProvider(scripted("ok"))
    agent = await _agent(tmp_path, provider, model="fn/x")
    try:
        await agent.run("hi")
    finally:
        await agent.close()
    assert agent.definition is None
    assert {"read", "write", "edit", "bash"} <= {t.name for t in provider.requests[0].tools}


async def test_an_unknown_or_untrusted_definition_is_a_clear_error(
    tmp_path: Path, config_home: Path
) -> None:
    folder = tmp_path / "ws" / ".shard" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(REVIEWER)
    with pytest.raises(ConfigError, match="no agent definition named 'reviewer'; known: none"):
        await _agent(tmp_path, FunctionProvider(scripted("ok")), agent_definition="reviewer")
    diagnostics: list[str] = []
    agent = await _agent(tmp_path, FunctionProvider(scripted("ok")), diagnostics=diagnostics)
    await agent.close()
    assert f"skipped {folder} (1 file): project agent definitions need --trust-project" in (
        " ".join(diagnostics)
    )
    trusted = await _agent(
        tmp_path, FunctionProvider(scripted("ok")), agent_definition="reviewer", trust_project=True
    )
    await trusted.close()
    assert trusted.session.mode == "plan"
