"""Every hook run is in the session JSONL as a `hook_run` checkpoint and goes to every client as
a `hook_run` event (the same record), redacted at both doors like a tool's output."""

from __future__ import annotations

import json
from pathlib import Path

from shard_core.protocol.events import Event, HookRunEvent
from shard_core.types import CheckpointEntry, HookRunCheckpoint
from tests.integration.hooks.recording import agent_with, bash, hook

SECRET = "sk-ant-api03-" + "Zq7" * 12


async def test_each_run_is_logged_and_sent_with_its_decision(work: Path) -> None:
    say = {"systemMessage": "policy v2 checked this", "hookSpecificOutput": {}}
    hooks = {
        "PreToolUse": [hook(work, "block", "Bash")],
        "PostToolUse": [hook(work, "say", "Bash", arg=json.dumps(say))],
    }
    agent, _ = await agent_with(work, hooks, bash("rm -rf build"))
    said: list[Event] = []
    agent.events.subscribe(said.append)
    try:
        await agent.run("go")
        path = agent.session.store.path
    finally:
        await agent.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    logged = [e["details"] for e in lines if e["details"].get("kind") == "hook_run"]
    assert [(r["event"], r["decision"], r["exit_code"]) for r in logged] == [
        ("PreToolUse", "deny", 2),
        ("PostToolUse", "none", 0),
    ]
    assert logged[0]["reason"] == "no rm here"
    assert logged[0]["tool"] == "bash"
    assert logged[0]["tool_call_id"] == "c1_0"
    assert logged[0]["source"] == "config.json"
    assert logged[1]["system_message"] == "policy v2 checked this"
    assert logged[0]["duration_ms"] > 0
    events = [e for e in said if isinstance(e, HookRunEvent)]
    assert [e.run.model_dump(mode="json", exclude_none=True) for e in events] == [
        {k: v for k, v in r.items() if v is not None} for r in logged
    ]
    ids = [e["id"] for e in lines if e["details"].get("kind") == "hook_run"]
    assert [e.entry_id for e in events] == ids


async def test_a_secret_in_a_hooks_output_is_redacted_in_the_log_and_the_event(
    work: Path,
) -> None:
    leak = {"decision": "block", "reason": f"token {SECRET} is not allowed"}
    hooks = {"PreToolUse": [hook(work, "say", "Bash", arg=json.dumps(leak))]}
    agent, provider = await agent_with(
        work, hooks, bash("echo hi"), env={"ANTHROPIC_API_KEY": SECRET}
    )
    said: list[Event] = []
    agent.events.subscribe(said.append)
    try:
        await agent.run("go")
        runs = [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, HookRunCheckpoint)
        ]
        log = agent.session.store.path.read_text()
    finally:
        await agent.close()
    [event] = [e for e in said if isinstance(e, HookRunEvent)]
    assert SECRET not in log
    assert SECRET not in event.model_dump_json()
    assert SECRET not in json.dumps(
        [m.model_dump(mode="json") for m in provider.requests[1].messages]
    )
    assert runs[0].reason == "token [secret] is not allowed"
