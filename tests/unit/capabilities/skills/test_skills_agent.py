"""An agent built by `create_agent` sees the catalog and can call load_skill (function provider)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ToolResultEntry
from shard_kernel.slash import literal
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.skills.conftest import write_skill

NO_KERNEL = cast(Any, None)  # /skills never touches the kernel


async def _agent(tmp_path: Path, provider: FunctionProvider, **kw: Any) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)

    def fn(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda model: provider)

    return await create_agent(
        cwd=ws,
        model="fn/any",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        extensions=[("test.fn", fn)],
        **kw,
    )


async def test_catalog_in_the_prompt_and_load_skill_returns_the_body(tmp_path: Path) -> None:
    write_skill(tmp_path / "home" / "skills", "r", "release-notes", "Write notes.", "STEP ONE")
    provider = FunctionProvider(
        scripted({"tool_calls": [("load_skill", {"name": "release-notes"})]})
    )
    agent = await _agent(tmp_path, provider)
    try:
        await agent.run("write the release notes")
        results = [e for e in agent.session.store.branch() if isinstance(e, ToolResultEntry)]
    finally:
        await agent.close()

    first = provider.requests[0]
    catalog = next(s for s in first.system if s.name == "skills:catalog")
    skill_md = tmp_path / "home" / "skills" / "r" / "SKILL.md"
    assert f"- release-notes: Write notes. ({skill_md})" in catalog.text
    assert "STEP ONE" not in "".join(s.text for s in first.system)
    assert "load_skill" in [t.name for t in first.tools]
    [result] = results
    assert not result.details.result.is_error
    assert "STEP ONE" in result.details.result.text


async def test_without_skills_there_is_no_tool_and_no_catalog(tmp_path: Path) -> None:
    provider = FunctionProvider(scripted("hi"))
    agent = await _agent(tmp_path, provider)
    try:
        await agent.run("hello")
    finally:
        await agent.close()
    assert "load_skill" not in [t.name for t in provider.requests[0].tools]
    assert all(s.name != "skills:catalog" for s in provider.requests[0].system)


async def test_untrusted_project_skills_are_skipped_with_a_diagnostic(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_skill(ws / ".agents" / "skills", "p", "project-skill", "from the repo")
    (ws / ".git").mkdir()
    diagnostics: list[str] = []
    agent = await _agent(tmp_path, FunctionProvider(scripted("hi")), diagnostics=diagnostics)
    await agent.close()
    assert agent.session.tools.get("load_skill") is None
    assert (
        f"skills: skipped {ws.resolve() / '.agents' / 'skills'}: project skills need "
        "--trust-project"
    ) in diagnostics

    trusted = await _agent(tmp_path, FunctionProvider(scripted("hi")), trust_project=True)
    await trusted.close()
    assert trusted.session.tools.get("load_skill") is not None


async def test_slash_skills_lists_live_skills_and_diagnostics(tmp_path: Path) -> None:
    from shard_kernel.slash import help_text, run_slash  # the kernel side of the feature

    empty = await _agent(tmp_path, FunctionProvider(scripted("hi")))
    await empty.close()
    # registered by the skills capability even when no skill is live, so it can say why
    assert (await run_slash(NO_KERNEL, empty, "/skills")).startswith("No skills: none were found")

    write_skill(tmp_path / "home" / "skills", "a", "review", "Review | carefully.")
    write_skill(tmp_path / "user" / ".agents" / "skills", "b", "review", "Review again.")
    agent = await _agent(tmp_path, FunctionProvider(scripted("hi")))
    await agent.close()
    table = await run_slash(NO_KERNEL, agent, "/skills")
    path = tmp_path / "user" / ".agents" / "skills" / "b" / "SKILL.md"
    assert table.splitlines()[:3] == [
        "| skill | layer | description | file |",
        "|---|---|---|---|",
        f"| review | user | Review again\\. | {literal(str(path))} |",
    ]
    assert table.splitlines()[-1].startswith("- warning: review\\: ")
    assert "| `/skills` | the Agent Skills this agent can load" in help_text(agent)
    assert "(extension shard\\.skills) |" in help_text(agent)


async def test_slash_skills_name_shows_one_skill_with_its_body(tmp_path: Path) -> None:
    from shard_kernel.slash import run_slash

    path = write_skill(
        tmp_path / "home" / "skills", "r", "release-notes", "Notes.", "## Steps\n```x```"
    )
    (path.parent / "scripts").mkdir()
    (path.parent / "scripts" / "make.py").write_text("print()")
    agent = await _agent(tmp_path, FunctionProvider(scripted("hi")))
    await agent.close()
    shown = await run_slash(NO_KERNEL, agent, "/skills release-notes")
    assert shown.splitlines()[:5] == [
        "**release\\-notes**",
        "",
        "| | |",
        "|---|---|",
        "| description | Notes\\. |",
    ]
    assert "| resources | 1: scripts/make.py |" in shown.replace("\\", "")
    assert shown.endswith("````markdown\n## Steps\n```x```\n````")
    missing = await run_slash(NO_KERNEL, agent, "/skills nope")
    assert missing == "No skill named nope; known: release\\-notes."
