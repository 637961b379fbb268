"""Hook points: events whose handlers the loop awaits and whose answers it uses.

An extension subscribes with `api.on(BEFORE_TOOL, fn)` like any event; the loop looks the
handlers up by name (no second registration path) and awaits them in registration order:

- `BEFORE_TOOL`: `fn(ToolCheck) -> ToolVerdict | None`, before the permission gate. `deny`
  blocks the call (its reason is the model's result); `updated_input` replaces the call's
  input, and the gate judges the changed input. Nothing a handler says loosens the gate: the
  gate still decides every call that is not blocked. A handler that raises blocks nothing and
  allows nothing (the gate decides).
- `AFTER_TOOL`: `fn(ToolDone) -> str | None`, after a result is logged; text is injected as
  context into the next request.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shard_core.engine.extension_events import Handler
from shard_core.types import JsonObject, ToolResult

log = logging.getLogger("shard.extensions")

BEFORE_TOOL = "before_tool"
AFTER_TOOL = "after_tool"


@dataclass(frozen=True)
class ToolCheck:
    tool: str
    input: JsonObject
    call_id: str
    turn_id: str
    session_id: str
    transcript_path: str
    cwd: str


@dataclass(frozen=True)
class ToolVerdict:
    deny: bool = False
    reason: str = ""
    updated_input: JsonObject | None = None


@dataclass(frozen=True)
class ToolDone:
    check: ToolCheck
    result: ToolResult


class HookPoints:
    """The handlers of the hook points among `handlers` (a live list: later ones count)."""

    def __init__(self, handlers: Sequence[Handler] = ()) -> None:
        self._handlers = handlers

    def _for(self, event: str) -> list[Handler]:
        return [h for h in self._handlers if h.event == event]

    async def before_tool(self, check: ToolCheck) -> ToolVerdict:
        current = check
        updated: JsonObject | None = None
        for entry in self._for(BEFORE_TOOL):
            verdict = await _call(entry, current)
            if not isinstance(verdict, ToolVerdict):
                continue
            if verdict.deny:
                return ToolVerdict(deny=True, reason=verdict.reason)
            if verdict.updated_input is not None:
                updated = verdict.updated_input
                current = dataclasses.replace(current, input=updated)
        return ToolVerdict(updated_input=updated)

    async def after_tool(self, done: ToolDone) -> list[str]:
        found: list[str] = []
        for entry in self._for(AFTER_TOOL):
            text = await _call(entry, done)
            if isinstance(text, str) and text.strip():
                found.append(text)
        return found


async def _call(entry: Handler, value: Any) -> Any:
    try:
        result = entry.handler(value)
        if inspect.isawaitable(result):
            result = await result
        return result
    except Exception as exc:  # a broken hook decides nothing; the gate still does
        log.warning("extension %s: %s handler failed: %s", entry.extension, entry.event, exc)
        return None
