"""`goal.continue` through a scripted model: the agent goes on turn after turn until it reports
the goal met (`goal_report`), says it is blocked, or a bound is hit, and says which bound; each
goal change is a `goal_update` event and every status event carries the active goal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.capabilities.commands import literal
from shard_core.capabilities.goals.pursuit import hit_bound
from shard_core.engine.config import GoalConfig, ShardConfig
from shard_core.engine.hook_points import TurnDone
from shard_core.engine.slash_commands import run_command
from shard_core.protocol.events import (
    Event,
    GoalUpdateEvent,
    StatusEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from shard_core.sdk import Agent, create_agent
from shard_core.types import CheckpointEntry, CompactionEntry, GoalCheckpoint, Usage

GOAL = "make every test in tests/ pass"


def _on(**bounds: Any) -> GoalConfig:
    """`goal.continue: true` with these bounds, as config.json says it."""
    return GoalConfig.model_validate({"continue": True, **bounds})


def _report(status: str, summary: str) -> dict[str, Any]:
    return {"name": "goal_report", "input": {"status": status, "summary": summary}}


async def _agent(
    tmp_path: Path, steps: list[dict[str, Any]], settings: GoalConfig, **kwargs: Any
) -> Agent:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "goal", "steps": steps}), encoding="utf-8")
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return await create_agent(
        cwd=ws,
        model=f"scripted/{script}",
        home=tmp_path / "home",
        config=ShardConfig(goal=settings),
        env={"HOME": str(tmp_path / "user")},
        **kwargs,
    )


def _updates(seen: list[Event]) -> list[tuple[str, str | None, str]]:
    return [(e.action, e.bound, e.message) for e in seen if isinstance(e, GoalUpdateEvent)]


async def test_it_goes_on_until_the_turn_bound_and_says_so(tmp_path: Path) -> None:
    steps = [{"text": f"worked, part {n}"} for n in range(6)]
    agent = await _agent(tmp_path, steps, _on(max_turns=3), goal=GOAL)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        end = await agent.run("start on it")
        prompts = [e.prompt for e in seen if isinstance(e, TurnStartEvent)]
        assert len(prompts) == 3
        assert prompts[0] == "start on it"
        assert prompts[1].startswith("[goal.continue, turn 2 of at most 3]")
        assert GOAL in prompts[2]
        assert [e.reason for e in seen if isinstance(e, TurnEndEvent)] == ["completed"] * 3
        assert end == [e for e in seen if isinstance(e, TurnEndEvent)][-1]
        assert _updates(seen) == [
            ("continued", None, "turn 2 of at most 3"),
            ("continued", None, "turn 3 of at most 3"),
            ("stopped", "turns", "stopped: 3 turns ran; goal.max_turns is 3"),
        ]
        assert not agent.session.running
        assert agent.session.provider.remaining == 3  # type: ignore[attr-defined]
    finally:
        await agent.close()


async def test_it_stops_when_the_model_reports_the_goal_met(tmp_path: Path) -> None:
    steps = [
        {"text": "first part"},
        {"text": "all green", "tool_calls": [_report("met", "all 12 tests pass")]},
        {"text": "done"},
        {"text": "never played"},
    ]
    agent = await _agent(tmp_path, steps, _on(max_turns=9), goal=GOAL)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("start on it")
        assert sum(isinstance(e, TurnStartEvent) for e in seen) == 2
        assert _updates(seen) == [
            ("continued", None, "turn 2 of at most 9"),
            ("done", None, "all 12 tests pass"),
        ]
        goals = [
            (e.details.status, e.details.source)
            for e in agent.session.store.branch()
            if isinstance(e, CheckpointEntry) and isinstance(e.details, GoalCheckpoint)
        ]
        assert goals == [("active", "user"), ("done", "model")]
        statuses = [e.goal for e in seen if isinstance(e, StatusEvent)]
        assert (statuses[0], statuses[-1]) == (GOAL, None)
        assert await run_command(agent.host, "/goal") == f"Goal (done): {literal(GOAL)}"
    finally:
        await agent.close()


async def test_blocked_stops_the_run_and_keeps_the_goal(tmp_path: Path) -> None:
    steps = [{"text": "stuck", "tool_calls": [_report("blocked", "need the API key")]}]
    steps += [{"text": "ok"}, {"text": "never played"}]
    agent = await _agent(tmp_path, steps, _on(), goal=GOAL)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("start on it")
        assert sum(isinstance(e, TurnStartEvent) for e in seen) == 1
        assert _updates(seen) == [("stopped", None, "blocked: need the API key")]
        assert agent.session.goal == GOAL
    finally:
        await agent.close()


async def test_the_token_and_time_bounds(tmp_path: Path) -> None:
    steps = [{"text": "a long answer " * 50} for _ in range(4)]
    agent = await _agent(tmp_path, steps, _on(max_tokens=1), goal=GOAL)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("start on it")
        (update,) = _updates(seen)
        assert update[:2] == ("stopped", "tokens")
        assert update[2].endswith("tokens used; goal.max_tokens is 1")
    finally:
        await agent.close()
    done = TurnDone(TurnEndEvent(agent_id="a", seq=0, ts=0, turn_id="t", reason="completed"),
                    turns=1, usage=Usage(cost_usd=0.5), seconds=90.0)  # fmt: skip
    assert hit_bound(GoalConfig(max_seconds=60), done) == (
        "time",
        "90 s passed; goal.max_seconds is 60",
    )
    assert hit_bound(GoalConfig(max_cost_usd=0.25), done) == (
        "cost",
        "$0.5000 spent; goal.max_cost_usd is $0.25",
    )
    assert hit_bound(GoalConfig(max_seconds=None), done) is None


async def test_without_continue_one_prompt_is_one_turn(tmp_path: Path) -> None:
    steps = [{"text": "one"}, {"text": "two"}]
    agent = await _agent(tmp_path, steps, GoalConfig(), goal=GOAL)
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("start on it")
        assert sum(isinstance(e, TurnStartEvent) for e in seen) == 1
        assert _updates(seen) == []
    finally:
        await agent.close()


async def test_a_goal_on_create_is_set_once_and_an_event(tmp_path: Path) -> None:
    agent = await _agent(tmp_path, [{"text": "x"}], GoalConfig(), goal=GOAL, agent_id="agent-g1")
    try:
        assert agent.session.goal == GOAL
        await run_command(agent.host, "/goal clear")
        assert agent.session.goal is None
    finally:
        await agent.close()
    again = await _agent(
        tmp_path, [{"text": "x"}], GoalConfig(), goal=GOAL, agent_id="agent-g1", resume=True
    )
    try:
        assert again.session.goal is None  # the clear stands: the create goal is not re-set
        assert await run_command(again.host, "/goal") == "No goal is set."
    finally:
        await again.close()


async def test_after_clear_compaction_drops_the_old_goal(tmp_path: Path) -> None:
    steps = [{"text": f"answer {n} " + "words " * 200} for n in range(4)]
    agent = await _agent(tmp_path, steps, GoalConfig())
    try:
        await agent.run("hello there, let us start on something else entirely")
        await run_command(agent.host, f"/goal {GOAL}")
        await agent.run("go on with the work please")
        assert await agent.session.compact("manual", force=True) is not None
        await run_command(agent.host, "/goal clear")
        await agent.run("and more of the work please")
        assert await agent.session.compact("manual", force=True) is not None
        first, second = [
            e.details.summary
            for e in agent.session.store.branch()
            if isinstance(e, CompactionEntry)
        ]
        assert f"## Session Goal\n- {GOAL}\n" in first
        assert GOAL not in second, second
    finally:
        await agent.close()


def test_the_text_views_say_each_goal_change() -> None:
    from shard_kernel.cell_output import CellOutput
    from shard_kernel.terminal.render import goal_line

    stopped = GoalUpdateEvent(agent_id="a", seq=1, ts=0, text=GOAL, status="active",
                              action="stopped", bound="turns",
                              message="stopped: 3 turns ran; goal.max_turns is 3")  # fmt: skip
    assert goal_line(stopped) == "Goal not met: stopped: 3 turns ran; goal.max_turns is 3."
    sent: list[tuple[str, dict[str, Any]]] = []
    CellOutput(lambda kind, content: sent.append((kind, content))).handle(stopped)
    ((kind, content),) = sent
    assert kind == "display_data"
    assert content["data"]["text/plain"] == goal_line(stopped)
