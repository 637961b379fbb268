"""`/goal`: set, done and clear are checkpoints in the log; a set goal is the Session Goal section
of every compaction, byte for byte, and a resumed agent has it; a goal over the cap is refused
with nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shard_core.capabilities.commands import literal
from shard_core.capabilities.goals import GOAL_MAX_CHARS
from shard_core.engine.config import ShardConfig
from shard_core.engine.slash_commands import run_command
from shard_core.sdk import Agent, create_agent
from shard_core.types import CheckpointEntry, CompactionEntry, GoalCheckpoint
from shard_core.types.errors import ConfigError
from shard_kernel.slash import status_table
from tests.fixtures.status_host import StatusHost

GOAL = "Port the parser to Rust, keep the parse() API & make 100% of tests pass (no unsafe)"


def _script(path: Path, turns: int) -> Path:
    steps = [{"text": f"answer {n} " + "words " * 200} for n in range(turns)]
    path.write_text(json.dumps({"name": "goals", "steps": steps}), encoding="utf-8")
    return path


async def _agent(tmp_path: Path, resume: str | None = None) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return await create_agent(
        cwd=ws,
        model=f"scripted/{_script(tmp_path / 's.json', 6)}",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        resume=resume,
    )


def _goals(agent: Agent) -> list[GoalCheckpoint]:
    return [
        e.details
        for e in agent.session.store.branch()
        if isinstance(e, CheckpointEntry) and isinstance(e.details, GoalCheckpoint)
    ]


def _section(summary: str) -> list[str]:
    lines = summary.split("## Session Goal\n", 1)[1].splitlines()
    return lines[: next(i for i, x in enumerate(lines) if not x.startswith("- "))]


async def test_set_done_clear_are_log_entries(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        assert await run_command(agent.host, "/goal") == "No goal is set."
        assert "Goal (active)" in await run_command(agent.host, f"/goal {GOAL}")
        assert "Goal (done)" in await run_command(agent.host, "/goal done")
        assert await run_command(agent.host, "/goal clear") == "No goal is set."
        assert [(g.status, g.text) for g in _goals(agent)] == [
            ("active", GOAL),
            ("done", GOAL),
            ("cleared", None),
        ]
    finally:
        await agent.close()


async def test_a_goal_over_the_cap_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        await run_command(agent.host, f"/goal {GOAL}")
        with pytest.raises(ConfigError, match=f"the limit is {GOAL_MAX_CHARS}"):
            await run_command(agent.host, "/goal " + "x" * (GOAL_MAX_CHARS + 1))
        assert [g.text for g in _goals(agent)] == [GOAL]
    finally:
        await agent.close()


async def test_the_goal_survives_compaction_and_resume_byte_for_byte(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        await agent.run("hello there, let us start on something else entirely")
        await run_command(agent.host, f"/goal {GOAL}")
        await agent.run("go on with the work please")
        first = await agent.session.compact("manual", force=True)
        assert first is not None
        await agent.run("and more of the work please")
        second = await agent.session.compact("manual", force=True)
        assert second is not None
        summaries = [
            e.details.summary
            for e in agent.session.store.branch()
            if isinstance(e, CompactionEntry)
        ]
        assert [_section(s) for s in summaries] == [[f"- {GOAL}"], [f"- {GOAL}"]]
        session_id = agent.session.store.session_id
    finally:
        await agent.close()
    resumed = await _agent(tmp_path, resume=session_id)
    try:
        assert [g.text for g in _goals(resumed)] == [GOAL]
        assert await run_command(resumed.host, "/goal") == f"Goal (active): {literal(GOAL)}"
    finally:
        await resumed.close()


async def test_status_shows_the_goal(tmp_path: Path) -> None:
    agent = await _agent(tmp_path)
    try:
        host = StatusHost(agent)
        assert "| goal | No goal is set. |" in status_table(host)  # type: ignore[arg-type]
        await run_command(agent.host, "/goal ship it")
        assert "| goal | Goal (active): ship it |" in status_table(host)  # type: ignore[arg-type]
    finally:
        await agent.close()
