"""Markdown prompt commands: found in their folders, listed like every command, and `/name ARGS`
sends the expanded body as the user turn (function provider, a real agent)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

from shard_core.capabilities.prompt_commands.extension import TURNS
from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.engine.slash_commands import PromptTurn, run_command
from shard_core.sdk import Agent, create_agent
from shard_core.types import ToolResultEntry
from shard_core.types.errors import ConfigError
from shard_kernel.agent_commands import list_commands
from tests.fixtures.function_provider import FunctionProvider, scripted


def _write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


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
        extensions=[("test.fn", fn), *kw.pop("extensions", [])],
        **kw,
    )


@pytest.fixture(autouse=True)
def _config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


FIX = """---
description: Fix an issue by number
argument-hint: NUMBER [PRIORITY]
model: fn/other
---
Fix issue #$1 with priority $2. All: $ARGUMENTS"""


async def test_arguments_reach_the_user_turn(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "commands", "fix-issue.md", FIX)
    provider = FunctionProvider(scripted("done"))
    agent = await _agent(tmp_path, provider)
    try:
        event = await agent.command("/fix-issue 123 high")
        await asyncio.gather(*TURNS)
    finally:
        await agent.close()
    assert event.ok
    assert event.markdown == "`/fix-issue` sent as the prompt."
    [request] = provider.requests
    assert request.messages[0].model_dump(mode="json")["content"][0]["text"] == (
        "Fix issue #123 with priority high. All: 123 high"
    )


async def test_namespaces_listing_and_argument_hint(tmp_path: Path) -> None:
    _write(tmp_path / "xdg" / "shard" / "commands", "git/commit.md", "Commit: $ARGUMENTS")
    _write(tmp_path / "home" / "commands", "fix-issue.md", FIX)
    agent = await _agent(tmp_path, FunctionProvider(scripted("x")))
    try:
        data = list_commands(agent).data
        listed = cast(list[dict[str, str]], data["commands"] if data else [])
        turn = await run_command(agent.host, "/git:commit add tests")
    finally:
        await agent.close()
    by_name = {c["name"]: c for c in listed}
    assert by_name["/git:commit"]["extension"] == "shard.prompt_commands"
    assert by_name["/git:commit"]["description"] == "the prompt in commit.md"
    assert by_name["/fix-issue"]["description"] == "Fix an issue by number"
    assert by_name["/fix-issue"]["hint"] == "NUMBER [PRIORITY]"
    assert by_name["/git:commit"]["hint"] == ""
    assert isinstance(turn, PromptTurn)
    assert turn == "Commit: add tests"


async def test_at_include_inside_and_refused_outside_the_workspace(tmp_path: Path) -> None:
    commands = tmp_path / "home" / "commands"
    _write(commands, "explain.md", "Explain @src/a.py please")
    _write(commands, "leak.md", "Look at @../secret.txt")
    _write(tmp_path / "ws", "src/a.py", "print(1)\n")
    _write(tmp_path, "secret.txt", "TOP SECRET")
    agent = await _agent(tmp_path, FunctionProvider(scripted("x")))
    try:
        turn = await run_command(agent.host, "/explain")
        with pytest.raises(ConfigError, match="path escapes the workspace") as refused:
            await run_command(agent.host, "/leak")
        event = await agent.command("/leak")
    finally:
        await agent.close()
    assert turn == 'Explain <file path="src/a.py">\nprint(1)\n\n</file> please'
    assert "TOP SECRET" not in str(refused.value)
    assert not event.ok
    assert not TURNS


async def test_shell_lines_go_through_the_gate(tmp_path: Path) -> None:
    """`!`git status`` is a bash call to the gate: allowed by a rule it runs and its output is
    inlined; denied (a deny rule, or asked with nobody to answer) nothing runs or is sent."""
    marker = tmp_path / "ran"
    commands = tmp_path / "home" / "commands"
    _write(commands, "state.md", "State:\n!`git status --short`\nEnd")
    _write(commands, "touchy.md", f"!`touch {marker}`")
    ws = tmp_path / "ws"
    _write(ws, "new.txt", "x")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    provider = FunctionProvider(scripted("x"))
    agent = await _agent(tmp_path, provider, allow=["Bash(git status:*)"], deny=["Bash(touch:*)"])
    try:
        turn = await run_command(agent.host, "/state")
        denied = await agent.command("/touchy")
    finally:
        await agent.close()
    assert turn.startswith("State:\n")
    assert turn.endswith("\nEnd")
    assert "?? new.txt" in turn  # the line became its output
    assert not denied.ok
    assert "!`touch" in denied.markdown
    assert "was not allowed" in denied.markdown
    assert not marker.exists()
    assert provider.requests == []

    asked = await _agent(tmp_path, FunctionProvider(scripted("x")))
    try:
        with pytest.raises(ConfigError, match="was not allowed"):
            await run_command(asked.host, "/touchy")
    finally:
        await asked.close()
    assert not marker.exists()


async def test_untrusted_project_commands_are_ignored_with_a_note(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(ws, ".claude/commands/review.md", "Review it")
    _write(ws, ".shard/commands/ship.md", "Ship it")
    _write(ws, ".agents/commands/plan.md", "Plan it")
    agent = await _agent(tmp_path, FunctionProvider(scripted("x")))
    try:
        names = [c.name for c in agent.host.commands()]
        notes = list(agent.session.diagnostics)
    finally:
        await agent.close()
    assert "review" not in names
    assert "ship" not in names
    assert "plan" not in names
    assert any("not loaded: the project is not trusted" in n for n in notes)

    trusted = await _agent(tmp_path, FunctionProvider(scripted("x")), trust_project=True)
    try:
        names = [c.name for c in trusted.host.commands()]
    finally:
        await trusted.close()
    assert {"review", "ship", "plan"} <= set(names)


async def test_bad_front_matter_is_one_diagnostic_and_the_rest_work(tmp_path: Path) -> None:
    commands = tmp_path / "home" / "commands"
    bad = _write(commands, "bad.md", "---\ndescription: [unclosed\n---\nbody")
    odd = _write(commands, "odd.md", "---\ncolour: red\n---\nbody")
    _write(commands, "good.md", "Good $1")
    agent = await _agent(tmp_path, FunctionProvider(scripted("x")))
    try:
        names = [c.name for c in agent.host.commands()]
        notes = [n for n in agent.session.diagnostics if "prompt command" in n]
        turn = await run_command(agent.host, "/good one")
    finally:
        await agent.close()
    assert "good" in names
    assert "bad" not in names
    assert "odd" not in names
    assert len(notes) == 2
    assert notes[0].startswith(f"prompt command {bad}: the front-matter is not valid YAML")
    assert notes[1] == (
        f"prompt command {odd}: unknown front-matter keys ['colour'] (known: "
        "['allowed-tools', 'argument-hint', 'description', 'model']); it was left out"
    )
    assert turn == "Good one"


async def test_allowed_tools_hold_for_one_turn_and_never_beat_a_deny(tmp_path: Path) -> None:
    made, kept = tmp_path / "ws" / "made.txt", tmp_path / "ws" / "kept.txt"
    _write(
        tmp_path / "home" / "commands",
        "make.md",
        "---\nallowed-tools: Bash(touch:*), Bash(rm:*)\n---\nMake it",
    )
    _write(tmp_path / "ws", "kept.txt", "x")
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("bash", {"command": f"touch {made}"})]},
            {"tool_calls": [("bash", {"command": f"rm {kept}"})]},
            "done",
            {"tool_calls": [("bash", {"command": f"touch {made}.again"})]},
            "done",
        )
    )
    agent = await _agent(tmp_path, provider, deny=["Bash(rm:*)"])
    try:
        rules_before = agent.gate.rules
        turn = await run_command(agent.host, "/make")
        during = [f"{r.text} from {r.source}" for r in agent.gate.rules.allow]
        await agent.run(str(turn))
        after = agent.gate.rules
        await agent.run("touch it again")
        results = [e for e in agent.session.store.branch() if isinstance(e, ToolResultEntry)]
    finally:
        await agent.close()
    source = f"prompt command /make ({tmp_path / 'home' / 'commands' / 'make.md'})"
    assert during == [f"Bash(touch:*) from {source}", f"Bash(rm:*) from {source}"]
    assert made.exists()
    assert kept.exists()  # the deny rule held
    assert after is rules_before
    assert not Path(f"{made}.again").exists()  # the next turn is asked, and nobody answers
    texts = [r.details.result.text for r in results]
    assert "permission denied" in texts[1]
    assert "permission denied" in texts[2]


async def test_model_answers_that_turn_only(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "commands", "quick.md", "---\nmodel: alt/small\n---\nBe quick")
    _write(tmp_path / "home" / "commands", "bad.md", "---\nmodel: small\n---\nBe quick")
    main, alt = FunctionProvider(scripted("main says")), FunctionProvider(scripted("alt says"))
    asked: list[str] = []

    def alt_provider(api: ExtensionApi) -> None:
        api.register_provider("alt", lambda model: (asked.append(model), alt)[1])

    agent = await _agent(tmp_path, main, extensions=[("test.alt", alt_provider)])
    try:
        turn = await run_command(agent.host, "/quick")
        await agent.run(str(turn))
        await agent.run("and now")
        with pytest.raises(ConfigError) as refused:
            await run_command(agent.host, "/bad")
        provider_after = agent.session.provider
    finally:
        await agent.close()
    assert asked == ["small"]  # the short form's factory gets the rest of the spec

    def last(provider: FunctionProvider) -> list[str]:
        return [r.messages[-1].content[0].model_dump()["text"] for r in provider.requests]

    assert last(alt) == ["Be quick"]
    assert last(main) == ["and now"]
    assert provider_after is main
    assert str(refused.value).startswith("/bad: model 'small': bad model 'small': expected one of")
    assert str(refused.value).endswith("; nothing was sent")
