"""`todo_write` through a scripted model: each call replaces the list whole (a checkpoint in the
log after its result), a duplicate id is an error result that keeps the list before, and
`/status` shows the list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import Event, StatusEvent, ToolResultEvent
from shard_core.sdk import Agent, create_agent
from shard_core.types import CheckpointEntry, TodosCheckpoint
from shard_kernel.slash import status_table
from tests.fixtures.status_host import StatusHost


def _call(*items: tuple[str, str, str]) -> dict[str, Any]:
    todos = [{"id": i, "content": c, "status": s} for i, c, s in items]
    return {"name": "todo_write", "input": {"todos": todos}}


FIRST = _call(("1", "read the code", "in_progress"), ("2", "fix the bug", "pending"))
SECOND = _call(("2", "fix the bug", "done"), ("3", "run the tests", "in_progress"))
DUPLICATE = _call(("4", "one", "pending"), ("4", "two", "pending"))


async def _agent(tmp_path: Path, calls: list[dict[str, Any]]) -> Agent:
    steps = [{"text": f"step {n}", "tool_calls": [call]} for n, call in enumerate(calls)]
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "todos", "steps": [*steps, {"text": "done"}]}))
    ws = tmp_path / "ws"
    ws.mkdir()
    return await create_agent(
        cwd=ws,
        model=f"scripted/{script}",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
    )


def _lists(agent: Agent) -> list[list[tuple[str, str, str]]]:
    return [
        [(i.id, i.content, i.status) for i in e.details.items]
        for e in agent.session.store.branch()
        if isinstance(e, CheckpointEntry) and isinstance(e.details, TodosCheckpoint)
    ]


async def test_each_call_replaces_the_list_and_a_duplicate_id_is_an_error(tmp_path: Path) -> None:
    agent = await _agent(tmp_path, [FIRST, SECOND, DUPLICATE])
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("plan and do it")
        results = [e.result for e in seen if isinstance(e, ToolResultEvent)]
        assert [r.is_error for r in results] == [False, False, True]
        assert results[1].text == "Todo list (1/2 done):\n[x] fix the bug\n[~] run the tests"
        assert "duplicate todo ids 4" in results[2].text
        assert "the list was not changed" in results[2].text
        assert _lists(agent) == [
            [("1", "read the code", "in_progress"), ("2", "fix the bug", "pending")],
            [("2", "fix the bug", "done"), ("3", "run the tests", "in_progress")],
        ]
        table = status_table(StatusHost(agent))  # type: ignore[arg-type]
        assert "| todos | [x] fix the bug; [~] run the tests |" in table
    finally:
        await agent.close()


async def test_status_without_a_list(tmp_path: Path) -> None:
    agent = await _agent(tmp_path, [])
    try:
        assert "| todos | none |" in status_table(StatusHost(agent))  # type: ignore[arg-type]
    finally:
        await agent.close()


async def test_every_status_carries_the_list(tmp_path: Path) -> None:
    agent = await _agent(tmp_path, [FIRST])
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("plan it")
        lists = [
            [(i.id, i.status) for i in e.todos]
            for e in seen
            if isinstance(e, StatusEvent) and e.todos
        ]
        assert lists[-1] == [("1", "in_progress"), ("2", "pending")]
    finally:
        await agent.close()


PLAN = """Here is what I will do.

## Implementation Plan
1. Read `calc.py`
- [x] Find the failing test
3. Fix `add`
"""


async def test_plan_modes_plan_becomes_the_same_list(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"name": "plan", "steps": [{"text": PLAN}]}))
    (tmp_path / "ws").mkdir()
    agent = await create_agent(cwd=tmp_path / "ws", model=f"scripted/{script}", mode="plan",
                               home=tmp_path / "home", config=ShardConfig(),
                               env={"HOME": str(tmp_path / "user")})  # fmt: skip
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("plan the fix")
        assert _lists(agent) == [
            [("1", "Read `calc.py`", "pending"), ("2", "Find the failing test", "done"),
             ("3", "Fix `add`", "pending")],
        ]  # fmt: skip
        (todos,) = [
            e.details
            for e in agent.session.store.branch()
            if isinstance(e, CheckpointEntry) and isinstance(e.details, TodosCheckpoint)
        ]
        assert todos.source == "plan"
        last = [e for e in seen if isinstance(e, StatusEvent)][-1]
        assert [i.content for i in last.todos or []] == [
            "Read `calc.py`",
            "Find the failing test",
            "Fix `add`",
        ]
    finally:
        await agent.close()
