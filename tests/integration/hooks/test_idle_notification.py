"""Notification's idle trigger: after `notifications.idle_seconds` of waiting for a person (the
next prompt after a turn, an answer to a permission question) the Notification hooks get
`idle_prompt`, as Claude Code's after 60 s. The waits are short here; every wait in the test
is for a condition (a hook's record, an event), with a generous deadline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from shard_core.capabilities.hooks import HooksCapability, load_hooks
from shard_core.capabilities.hooks.sample import try_event
from shard_core.engine.config import NotificationsConfig, ShardConfig
from shard_core.protocol.events import Event, PermissionRequestEvent
from shard_core.sdk import Agent
from shard_core.types import CheckpointEntry, HookRunCheckpoint, MessageEntry
from tests.integration.hooks.recording import agent_with, bash, hook, seen

DEADLINE = 60.0


def config(hooks: dict[str, Any], seconds: float) -> ShardConfig:
    return ShardConfig(hooks=hooks, notifications=NotificationsConfig(idle_seconds=seconds))


def hook_runs(agent: Agent) -> list[HookRunCheckpoint]:
    return [
        e.details
        for e in agent.session.store.entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, HookRunCheckpoint)
    ]


async def notifications(work: Path, agent: Agent, count: int) -> list[dict[str, Any]]:
    """The first `count` Notification inputs the recording hook got, once their runs are logged
    (the hook writes its record before it exits, the run is logged after)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + DEADLINE
    while loop.time() < until:
        if len([r for r in hook_runs(agent) if r.event == "Notification"]) >= count:
            break
        await asyncio.sleep(0.05)
    return [e for e in seen(work) if e["hook_event_name"] == "Notification"]


async def test_idle_prompt_fires_once_the_agent_waited_for_the_next_prompt(work: Path) -> None:
    hooks = {"Notification": [hook(work, "none", "idle_prompt")]}
    agent, _ = await agent_with(work, hooks, config=config(hooks, 0.2))
    try:
        await agent.run("go")
        [note] = await notifications(work, agent, 1)
        runs = hook_runs(agent)
    finally:
        await agent.close()
    assert {k: note[k] for k in ("hook_event_name", "notification_type", "message")} == {
        "hook_event_name": "Notification",
        "notification_type": "idle_prompt",
        "message": "Shard is waiting for your input",
    }
    assert note["session_id"] == agent.session.store.session_id
    assert note["transcript_path"] == str(agent.session.store.path)
    assert [(r.event, r.decision, r.turn_id) for r in runs] == [("Notification", "none", None)]


async def test_a_prompt_ends_the_wait(work: Path) -> None:
    """Turn two starts right after turn one, and its UserPromptSubmit hook holds turn two past
    the idle time of the wait turn one began: that wait is over (the prompt ended it), so no
    Notification runs while turn two is held, and the only idle_prompt comes after turn two,
    the last entry of the log. The hold ends early if a Notification runs (the failure): with
    the code right, the outcome does not depend on how long the hold is."""
    idle = 0.3
    hooks = {
        "Notification": [hook(work, "none", "idle_prompt")],
        "UserPromptSubmit": [hook(work, "hold", "", arg="release")],
    }
    agent, _ = await agent_with(work, hooks, config=config(hooks, idle))
    loop = asyncio.get_running_loop()
    try:
        (work / "release").touch()  # turn one's hook goes straight on
        await agent.run("one")
        due = loop.time() + idle  # turn one's wait began before its run returned
        (work / "release").unlink()
        two = asyncio.create_task(agent.run("two"))
        until = loop.time() + DEADLINE
        while len(seen(work)) < 2:  # turn two's hook is holding it
            assert loop.time() < until, seen(work)
            await asyncio.sleep(0.02)
        while len(seen(work)) == 2 and loop.time() < due + 1.0:  # a second past due
            await asyncio.sleep(0.02)
        held = [e["hook_event_name"] for e in seen(work)]
        (work / "release").touch()
        await two
        [note] = await notifications(work, agent, 1)
        entries = list(agent.session.store.entries)
    finally:
        await agent.close()
    assert held == ["UserPromptSubmit", "UserPromptSubmit"]
    assert note["notification_type"] == "idle_prompt"
    order = [e["hook_event_name"] for e in seen(work)]
    assert order == ["UserPromptSubmit", "UserPromptSubmit", "Notification"]
    last, before = entries[-1], entries[-2]
    assert isinstance(last, CheckpointEntry)
    assert isinstance(last.details, HookRunCheckpoint)
    assert last.details.event == "Notification"
    assert isinstance(before, MessageEntry)
    assert before.details.message.role == "assistant"


async def test_a_permission_question_left_open_notifies_then_the_next_prompt_wait(
    work: Path,
) -> None:
    hooks = {"Notification": [hook(work, "none", "idle_prompt")]}
    asked: list[PermissionRequestEvent] = []

    def watch(event: Event) -> None:
        if isinstance(event, PermissionRequestEvent):
            asked.append(event)

    agent, _ = await agent_with(
        work, hooks, bash("touch asked.txt"), allow=[], config=config(hooks, 0.3),
        has_responder=lambda: True, permission_timeout=300,
    )  # fmt: skip
    agent.session.events.subscribe(watch)
    try:
        turn = asyncio.create_task(agent.run("go"))
        [waiting] = await notifications(work, agent, 1)
        assert [a.tool for a in asked] == ["bash"]
        assert agent.gate.respond(asked[0].request_id, "deny", "test", "interactive").accepted
        await turn
        notes = await notifications(work, agent, 2)
    finally:
        await agent.close()
    assert [(n["notification_type"], n["message"]) for n in notes] == [
        ("idle_prompt", "Shard is waiting for your permission to use bash"),
        ("idle_prompt", "Shard is waiting for your input"),
    ]
    assert waiting == notes[0]
    assert not (work / "asked.txt").exists()


async def test_hooks_test_runs_the_idle_notification(work: Path) -> None:
    hooks = HooksCapability(work, trusted=False)
    hooks.config = load_hooks(
        {"Notification": [hook(work, "none", "idle_prompt")]}, cwd=work, trusted=False
    )
    [run] = await try_event(hooks, "Notification", tool="idle_prompt")
    assert (run.event, run.exit_code, run.decision) == ("Notification", 0, "none")
    [note] = seen(work)
    assert (note["notification_type"], note["message"]) == (
        "idle_prompt",
        "Shard is waiting for your input",
    )
    assert not hooks.idle.armed
