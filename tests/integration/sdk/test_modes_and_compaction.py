"""Modes and compaction inside the real loop: plan → build, a third mode, both compaction tiers.

"Model-visible ⟺ logged": what each request carried is read back from the session log's
context checkpoints, so these tests assert on exactly what the model saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi, ModeContext, Tool, ToolContext
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import (
    AssistantMessage,
    CheckpointDetails,
    CheckpointEntry,
    CompactionEntry,
    ContextCheckpoint,
    Decision,
    MessageEntry,
    PlanCheckpoint,
    ProviderRequest,
    ToolResultEntry,
    Usage,
)
from tests.fixtures.function_provider import FunctionProvider, Reply, scripted

PLAN = """I read the code.

## Implementation Plan
1. Read calc.py
2. Change `a - b` to `a + b` in add()
3. Run the tests
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    # ~40 kB: reading it fills a small context window for real, not just by reported usage
    notes = "".join(f"# note {i}: the calculator keeps its history here\n" for i in range(900))
    (work / "notes.py").write_text(notes)
    return work


async def _agent(work: Path, provider: FunctionProvider, **kw: Any) -> Agent:
    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    extensions = [("test.provider", install), *kw.pop("extensions", [])]
    return await create_agent(
        cwd=work, model="fn/test", config=ShardConfig(), env={}, extensions=extensions, **kw
    )


def _systems(agent: Agent) -> list[str]:
    """The system prompt of every request, in order, from the log."""
    by_hash = {
        e.details.system_hash: "\n".join(s["text"] for s in e.details.system)
        for e in agent.session.store.entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, ContextCheckpoint)
    }
    return [
        by_hash[e.details.request.system_hash]
        for e in agent.session.store.entries
        if isinstance(e, MessageEntry) and e.details.request is not None
    ]


async def test_plan_then_build_carries_the_active_plan_and_a_fork_does_not(home: Path) -> None:
    provider = FunctionProvider(scripted(PLAN, "Done: fixed.", "Nothing planned here."))
    agent = await _agent(home, provider, mode="plan")
    try:
        first_user = None
        await agent.run("plan the fix")
        plans = [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, PlanCheckpoint)
        ]
        assert [s.text for s in plans[0].steps] == [
            "Read calc.py",
            "Change `a - b` to `a + b` in add()",
            "Run the tests",
        ]
        assert {t.name for t in provider.requests[0].tools} <= {
            "read",
            "grep",
            "find",
            "ls",
            "recall",
            "task_status",
            "task_output",
            "code_outline",
            "code_symbol",
            "repo_map",
            "code_diagnostics",
            "terminal_read",
            "terminal_wait",
            "terminal_list",
            "todo_write",  # the agent's own plan: it changes no file
            "goal_report",  # the session's own goal: no file either
            "ask_user",  # a question to the person: it waits, it changes nothing
        }
        agent.set_mode("build")
        await agent.run("do it")
        build_system = _systems(agent)[-1]
        assert "## Active Plan" in build_system
        assert "Change `a - b` to `a + b` in add()" in build_system
        assert "write" in {t.name for t in provider.requests[1].tools}
        first_user = next(e for e in agent.session.store.entries if isinstance(e, MessageEntry))
        fork_id = agent.fork(first_user.id)
    finally:
        await agent.close()
    forked = await _agent(home, provider, mode="build", resume=fork_id)
    try:
        await forked.run("what is planned?")
        assert "## Active Plan" not in _systems(forked)[-1]
    finally:
        await forked.close()


async def test_build_work_marks_plan_steps_done_for_the_prompt_and_the_summary(
    home: Path,
) -> None:
    replies: list[Reply] = [
        PLAN,
        {"tool_calls": [("read", {"path": "calc.py"})]},
        "Read it and changed add() to return a + b.\n\nDone: steps 1-2",
        "Next I run the tests.",
    ]
    provider = FunctionProvider(scripted(*replies))
    agent = await _agent(home, provider, mode="plan")
    try:
        await agent.run("plan the fix")
        agent.set_mode("build")
        await agent.run("do steps 1 and 2")
        await agent.run("go on")
        compaction = await agent.session.compact("manual", force=True)
    finally:
        await agent.close()
    plans = [
        e.details
        for e in agent.session.store.entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, PlanCheckpoint)
    ]
    assert [[s.done for s in p.steps] for p in plans] == [[False] * 3, [True, True, False]]
    system = _systems(agent)[-1]  # the request after the build turn
    assert "1. Read calc.py (done)" in system
    assert "2. Change `a - b` to `a + b` in add() (done)" in system
    assert "3. Run the tests\n" in system + "\n"
    assert "`Done: step N`" in system  # the section says how to report a finished step
    assert compaction is not None
    summary = agent.session.store.entries[-1].details.summary  # type: ignore[union-attr]
    progress = summary[summary.index("## Progress") :]
    assert "- plan: 2/3 steps done" in progress
    assert "- next action: Run the tests" in progress


class ReviewMode:
    """A third mode from an extension: read-only tools, its own prompt, a deny vote."""

    name = "review"
    description = "read and comment, change nothing"

    def filter_tools(self, tools: Sequence[Tool]) -> list[Tool]:
        return [t for t in tools if t.read_only]

    def prompt_section(self, ctx: ModeContext) -> str | None:
        return "## Review Mode\nComment on the code; do not change it."

    def vote(self, tool: Tool, input: dict[str, object]) -> Decision | None:
        return None

    def on_turn_end(self, message: AssistantMessage, ctx: ModeContext) -> CheckpointDetails | None:
        return None


async def test_a_third_mode_from_an_extension_works_without_touching_the_loop(home: Path) -> None:
    provider = FunctionProvider(
        scripted({"tool_calls": [("write", {"path": "x.txt", "content": "no"})]}, "Reviewed.")
    )

    def install(api: ExtensionApi) -> None:
        api.register_mode(ReviewMode())

    agent = await _agent(home, provider, mode="review", extensions=[("test.review", install)])
    try:
        events = [e async for e in agent.prompt("review calc.py")]
    finally:
        await agent.close()
    assert "## Review Mode" in _systems(agent)[0]
    assert "write" not in {t.name for t in provider.requests[0].tools}
    result = next(e for e in events if e.type == "tool_result")
    assert result.result.is_error
    assert "not available in review mode" in result.result.text
    assert not (home / "x.txt").exists()


def _usage_near(window: int, fraction: float) -> Usage:
    return Usage(input_tokens=int(window * fraction), output_tokens=10)


async def test_emergency_compaction_mid_turn_then_the_turn_finishes(home: Path) -> None:
    window = 20_000
    calls = {"n": 0}

    def usage(request: ProviderRequest) -> Usage:
        calls["n"] += 1
        return _usage_near(window, 1.0 if calls["n"] == 2 else 0.2)

    replies: list[Reply] = [
        {"tool_calls": [("read", {"path": "notes.py"})]},
        {"tool_calls": [("read", {"path": "calc.py"})]},
        "Finished after compacting.",
    ]
    provider = FunctionProvider(scripted(*replies), context_window=window, usage=usage)
    agent = await _agent(home, provider)
    try:
        events = [e async for e in agent.prompt("look at calc.py twice")]
    finally:
        await agent.close()
    kinds = [e.type for e in events]
    assert kinds.count("compaction") == 1
    compaction = next(e for e in events if e.type == "compaction")
    assert compaction.reason == "overflow"
    assert kinds.index("compaction") < len(kinds) - 1
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "completed"
    assert "Finished after compacting." in "".join(
        e.message.text for e in events if e.type == "message_complete"
    )
    # the request after the compaction carried the summary in its system prompt
    assert "look at calc.py twice" in _systems(agent)[-1]


def _measured(request: ProviderRequest) -> Usage:
    """Usage as a real provider would report it: the size of what was sent."""
    sent = sum(len(x.text) for x in request.system) + sum(
        len(m.model_dump_json()) for m in request.messages
    )
    sent += sum(len(t.model_dump_json()) for t in request.tools)
    return Usage(input_tokens=sent // 4, output_tokens=20)


async def test_the_task_survives_a_threshold_compaction(home: Path) -> None:
    replies: list[Reply] = [
        PLAN,
        {"tool_calls": [("read", {"path": "notes.py"})]},
        {"tool_calls": [("bash", {"command": "python -c 'raise SystemExit(3)'"})]},
        "The command failed; next I will fix add() in calc.py.",
        "Continuing with the plan.",
    ]
    provider = FunctionProvider(scripted(*replies), context_window=14_000, usage=_measured)
    agent = await _agent(home, provider, mode="plan", allow=["Bash(python:*)"])
    try:
        await agent.run("Goal: make add() in calc.py return the sum")
        agent.set_mode("build")
        await agent.run("run the check")
        assert any(isinstance(e, CompactionEntry) for e in agent.session.store.entries)
        await agent.run("go on")
        system = _systems(agent)[-1]
        fact, whole = await _recall_a_folded_fact(agent, home)
    finally:
        await agent.close()
    best = fact.splitlines()[1]  # found by recall, the folded read ranked first
    assert "tool_result read: " in best
    assert "[calculator] keeps its [history] here" in best
    read = next(
        e.details.result.text
        for e in agent.session.store.entries
        if isinstance(e, ToolResultEntry) and "# note 5: the calculator" in e.details.result.text
    )
    assert whole == read  # expand returns the entry whole, page after page
    last = provider.requests[-1]
    assert "# Compacted session summary" in system
    assert system == "\n".join(x.text for x in last.system)
    seen = system + "".join(m.model_dump_json() for m in last.messages)
    assert "make add() in calc.py return the sum" in seen  # the goal
    assert "## Active Plan" in system  # the plan survives compaction
    assert "exit code 3" in seen  # the unresolved failure
    assert "next I will fix add()" in seen  # the next action
    assert "note 5: the calculator" not in seen  # the big read was folded away


async def _recall_a_folded_fact(agent: Agent, work: Path) -> tuple[str, str]:
    """Ask the agent's own recall tool for a fact the compaction folded, then expand it."""
    tool = agent.session.tools.get("recall")
    assert tool is not None
    ctx = ToolContext(
        cwd=work,
        roots=[work],
        agent_id=agent.agent_id,
        session_id=agent.session.store.session_id,
        call_id="c-test",
    )
    found = await tool.execute({"query": "calculator history note"}, ctx)
    assert not found.is_error, found.text
    index = found.details["indices"][0]
    pages: list[str] = []
    cursor: str | None = None
    while True:  # a long entry comes in pages of characters, each naming the next
        page = await tool.execute(
            {"expand": [index], **({"cursor": cursor} if cursor else {})}, ctx
        )
        assert not page.is_error, page.text
        pages.append(page.text.split("\n", 1)[1].rsplit("\n\nmore of it: ", 1)[0])
        cursor = page.details.get("next_cursor")
        if cursor is None:
            return found.text, "".join(pages)
