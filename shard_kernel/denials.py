"""DenialWatch: whether permission denials blocked a turn, from its events (ExitCode.BLOCKED)."""

from __future__ import annotations

from shard_core.protocol.events import Event, ToolCallEvent, ToolResultEvent
from shard_core.types import ToolResult

__all__ = ["DENIED_PREFIX", "DenialWatch", "denied"]

# How the engine words every denied call's result (shard_core/engine/step.py).
DENIED_PREFIX = "permission denied:"


class DenialWatch:
    """Whether the turn is blocked: some call was denied and no mutating call succeeded since.

    A read-only call after a denial (looking around, then giving up) leaves the turn blocked;
    a successful edit, write or command means the agent found another way."""

    def __init__(self) -> None:
        self.blocked = False
        self._read_only: dict[str, bool] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallEvent):
            self._read_only[event.call.id] = event.read_only
        elif isinstance(event, ToolResultEvent):
            if denied(event.result):
                self.blocked = True
            elif not event.result.is_error and not self._read_only.get(event.tool_call_id):
                self.blocked = False


def denied(result: ToolResult) -> bool:
    return result.is_error and result.text.startswith(DENIED_PREFIX)
