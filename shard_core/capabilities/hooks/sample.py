"""Running an event's hooks against a sample event, as `shard hooks test EVENT` does.

The same capability, runner and reading of the answers as in an agent; the input is a made-up
event of that kind (a tool call for the tool events; for Notification a permission prompt, or
the idle one with `--tool idle_prompt`) in a session named `hooks-test`, and what
the hooks decided is only reported, never applied.
"""

from __future__ import annotations

from typing import Any

from shard_core.capabilities.hooks.capability import HooksCapability
from shard_core.capabilities.hooks.config import EVENTS
from shard_core.engine.hook_points import (
    AskCheck,
    CompactCheck,
    HookPlace,
    PromptCheck,
    SessionCheck,
    StopCheck,
    ToolCheck,
    ToolDone,
)
from shard_core.protocol.events import PermissionRequestEvent
from shard_core.types import HookRunCheckpoint, JsonObject, ToolResult
from shard_core.types.errors import ConfigError

SAMPLE_SESSION = "hooks-test"


async def try_event(
    hooks: HooksCapability, event: str, *, tool: str = "bash", input: JsonObject | None = None
) -> list[HookRunCheckpoint]:
    """Run `event`'s matching hooks once against a sample of it; their runs, in order."""
    if event not in EVENTS:
        raise ConfigError(f"unknown hook event {event!r}; known: {', '.join(EVENTS)}")
    place = HookPlace(SAMPLE_SESSION, "", str(hooks.cwd), turn_id="turn-sample")
    hooks.place = place
    tool_input: JsonObject = input if input is not None else {"command": "echo sample"}
    check = ToolCheck(place, tool, tool_input, "call-sample")
    before = len(hooks.runs)
    samples: dict[str, Any] = {
        "PreToolUse": lambda: hooks.before_tool(check),
        "PostToolUse": lambda: hooks.after_tool(ToolDone(check, ToolResult.ok("sample output"))),
        "PermissionRequest": lambda: hooks.before_ask(
            AskCheck(place, tool, tool_input, "call-sample", f"Allow {tool}?")
        ),
        "UserPromptSubmit": lambda: hooks.before_prompt(PromptCheck(place, "a sample prompt")),
        "Stop": lambda: hooks.before_stop(StopCheck(place, active=False)),
        "SubagentStop": lambda: hooks.before_stop(
            StopCheck(HookPlace(SAMPLE_SESSION, "", place.cwd, parent_agent_id="parent"), False)
        ),
        "PreCompact": lambda: hooks.before_compact(CompactCheck(place, "manual", "manual")),
        "SessionStart": lambda: hooks.session_start(SessionCheck(place, "startup")),
        "SessionEnd": lambda: hooks.session_end(SessionCheck(place, "other")),
        "Notification": lambda: (
            hooks.idle_prompt("Shard is waiting for your input")
            if tool == "idle_prompt"
            else hooks.notify(_ask(tool, tool_input))
        ),
    }
    try:
        await samples[event]()
    finally:
        hooks.idle.close()  # a sample waits for no one
    return list(hooks.runs)[before:]


def _ask(tool: str, input: JsonObject) -> PermissionRequestEvent:
    return PermissionRequestEvent(
        agent_id="hooks-test", seq=0, ts=0.0, request_id="perm-sample", tool=tool, input=input,
        prompt=f"Allow {tool}?",
    )  # fmt: skip
