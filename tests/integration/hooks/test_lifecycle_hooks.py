"""The lifecycle events beyond the tool calls, each run as a real hook subprocess: it fires once
at its moment, with the documented JSON on stdin, and its answer does what Claude Code's does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import Event, StatusEvent
from shard_core.types import MessageEntry, PermissionEntry
from tests.integration.hooks.recording import agent_with, bash, hook, run, seen, sent

BASE = {"session_id", "transcript_path", "cwd", "hook_event_name"}


def only(work: Path, event: str) -> dict[str, Any]:
    """The one input `event`'s hook got (fails if it fired more or less than once)."""
    found = [e for e in seen(work) if e["hook_event_name"] == event]
    assert len(found) == 1, (event, seen(work))
    assert set(found[0]) >= BASE
    assert found[0]["cwd"] == str(work.resolve())
    assert found[0]["transcript_path"].endswith(".jsonl")
    return found[0]


def say(work: Path, answer: dict[str, Any], matcher: str = "") -> dict[str, Any]:
    return hook(work, "say", matcher=matcher, arg=json.dumps(answer))


async def test_user_prompt_submit_gets_the_prompt_and_adds_context(work: Path) -> None:
    answer = {"hookSpecificOutput": {"additionalContext": "TICKET-7 is the current task"}}
    provider, _, _ = await run(work, {"UserPromptSubmit": [say(work, answer)]})
    assert only(work, "UserPromptSubmit")["prompt"] == "go"
    assert "TICKET-7 is the current task" in sent(provider, 0)


async def test_user_prompt_submit_block_keeps_the_prompt_from_the_model(work: Path) -> None:
    agent, provider = await agent_with(work, {"UserPromptSubmit": [hook(work, "block", "")]})
    try:
        end = await agent.run("rm -rf everything")
        logged = [e for e in agent.session.store.entries if isinstance(e, MessageEntry)]
    finally:
        await agent.close()
    assert end.reason == "hook_stopped"
    assert provider.requests == []
    assert logged == []  # the blocked prompt is not in the log


async def test_stop_hook_keeps_the_agent_going_until_a_file_exists(work: Path) -> None:
    stop = {"Stop": [hook(work, "until", "", arg="ok.txt")]}
    provider, results, _ = await run(
        work, stop, "all done", bash("touch ok.txt"), allow=["Bash(touch:*)"]
    )
    assert (work / "ok.txt").exists()
    assert not results[0].is_error
    stops = [e for e in seen(work) if e["hook_event_name"] == "Stop"]
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert "create ok.txt first" in sent(provider, 1)
    assert len(provider.requests) == 3


async def test_stop_hook_continuations_are_bounded_and_the_bound_is_said(work: Path) -> None:
    hooks: dict[str, object] = {"Stop": [say(work, {"decision": "block", "reason": "keep going"})]}
    config = ShardConfig(hooks=hooks, max_stop_continuations=2)
    agent, provider = await agent_with(work, {}, config=config)
    said: list[Event] = []
    agent.events.subscribe(said.append)
    try:
        end = await agent.run("go")
    finally:
        await agent.close()
    assert end.reason == "completed"
    assert len(provider.requests) == 3  # the first answer and two continuations
    assert len([e for e in seen(work) if e["hook_event_name"] == "Stop"]) == 3
    notes = [e.message for e in said if isinstance(e, StatusEvent) and e.message]
    assert any("bound of 2 continuations" in n for n in notes), notes


async def test_a_subagent_fires_subagent_stop_instead_of_stop(work: Path) -> None:
    hooks = {"Stop": [hook(work, "none", "")], "SubagentStop": [hook(work, "none", "")]}
    await run(work, hooks, parent_agent_id="agent-parent")
    assert only(work, "SubagentStop")["stop_hook_active"] is False
    assert [e["hook_event_name"] for e in seen(work)] == ["SubagentStop"]


async def test_pre_compact_fires_before_a_compaction_with_its_trigger(work: Path) -> None:
    agent, _ = await agent_with(work, {"PreCompact": [hook(work, "none", "manual")]})
    try:
        await agent.run("go")
        await agent.session.compact("manual", force=True)
        await agent.session.compact("threshold", force=True)  # "auto": the matcher skips it
    finally:
        await agent.close()
    assert only(work, "PreCompact")["trigger"] == "manual"


async def test_session_start_and_end_fire_once_each(work: Path) -> None:
    start = hook(work, "say", "startup", arg="Remember: the build uses make")
    provider, _, _ = await run(
        work, {"SessionStart": [start], "SessionEnd": [hook(work, "none", "")]}
    )
    assert only(work, "SessionStart")["source"] == "startup"
    assert only(work, "SessionEnd")["reason"] == "other"
    assert [e["hook_event_name"] for e in seen(work)] == ["SessionStart", "SessionEnd"]
    assert "Remember: the build uses make" in sent(provider, 0)


async def test_notification_fires_when_the_agent_asks_a_person(work: Path) -> None:
    hooks = {"Notification": [hook(work, "none", "permission_prompt")]}
    await run(work, hooks, bash("touch asked.txt"), allow=[])
    note = only(work, "Notification")
    assert note["notification_type"] == "permission_prompt"
    assert note["message"] == "Shard needs your permission to use bash"


def permission(work: Path, behavior: str, **extra: Any) -> dict[str, Any]:
    decision = {"behavior": behavior, **extra}
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    return say(work, answer, matcher="Bash")


async def test_permission_request_allow_answers_the_question(work: Path) -> None:
    agent, _ = await agent_with(work, {"PermissionRequest": [permission(work, "allow")]}, bash(
        "touch asked.txt"), allow=[])  # fmt: skip
    try:
        await agent.run("go")
        decided = [e.details for e in agent.session.store.entries if isinstance(e, PermissionEntry)]
    finally:
        await agent.close()
    assert (work / "asked.txt").exists()
    asked = only(work, "PermissionRequest")
    assert (asked["tool_name"], asked["tool_input"]) == ("bash", {"command": "touch asked.txt"})
    assert [(d.decision, d.source) for d in decided] == [("allow", "hook")]


async def test_permission_request_deny_answers_with_its_message(work: Path) -> None:
    hooks = {"PermissionRequest": [permission(work, "deny", message="not on Fridays")]}
    _, results, _ = await run(work, hooks, bash("touch asked.txt"), allow=[])
    assert results[0].is_error
    assert "not on Fridays" in results[0].text
    assert not (work / "asked.txt").exists()


async def test_permission_request_hook_failing_never_allows(work: Path) -> None:
    for mode in ("crash", "garbage", "hang"):
        hooks = {"PermissionRequest": [hook(work, mode, timeout=1)]}
        _, results, _ = await run(work, hooks, bash("touch asked.txt"), allow=[])
        assert results[0].is_error, mode
        assert "permission denied" in results[0].text
    assert not (work / "asked.txt").exists()
    assert len(seen(work)) == 3


async def test_permission_request_never_sees_a_call_a_deny_rule_refuses(work: Path) -> None:
    hooks = {"PermissionRequest": [permission(work, "allow")]}
    _, results, _ = await run(work, hooks, bash("touch asked.txt"), deny=["Bash(touch:*)"])
    assert results[0].is_error
    assert seen(work) == []
    assert not (work / "asked.txt").exists()


async def test_permission_request_allow_does_not_answer_an_always_ask_rule(work: Path) -> None:
    hooks = {"PermissionRequest": [permission(work, "allow")]}
    config = ShardConfig(hooks=hooks, permissions={"ask": ["Bash(touch:*)"]})  # pyright: ignore[reportArgumentType]
    _, results, _ = await run(work, {}, bash("touch asked.txt"), config=config, allow=[])
    assert results[0].is_error
    assert not (work / "asked.txt").exists()


async def test_continue_false_ends_the_turn_before_the_tool(work: Path) -> None:
    answer = {"continue": False, "stopReason": "frozen for the release"}
    agent, provider = await agent_with(work, {"PreToolUse": [say(work, answer)]}, bash("echo x"))
    try:
        end = await agent.run("go")
    finally:
        await agent.close()
    assert end.reason == "hook_stopped"
    assert len(provider.requests) == 1  # no request after the stop


async def test_session_start_says_resume_for_a_resumed_session(work: Path) -> None:
    agent, _ = await agent_with(work, {})
    try:
        await agent.run("go")
        session_id = agent.session.store.session_id
    finally:
        await agent.close()
    await run(work, {"SessionStart": [hook(work, "none", "resume")]}, resume=session_id)
    assert only(work, "SessionStart")["source"] == "resume"
