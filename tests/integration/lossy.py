"""A lossy hop for protocol clients under test: real messages from a real kernel, some of the
events dropped on their way to one client (each client must sync the gap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shard_core.protocol.events import EVENT_BATCH_TYPE
from shard_core.protocol.link import EVENTS_COMM_ID

EPHEMERAL = {"message_delta", "tool_update"}
STEPS: list[dict[str, Any]] = [
    {"text": "Let me look.", "tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
    {"text": "Once more.", "tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]},
    {"text": "All done: the file says hello."},
]
"""A scripted turn with two tool calls (reads of a.txt in the workspace: allowed by default)."""
DROP = ("tool_call", "message_complete", "tool_result")
"""The first event of each of these types is lost on the way to the lossy client."""


class Lossy:
    """Drops the first event of each type in `types` from the messages passing through."""

    def __init__(self, types: tuple[str, ...] = DROP) -> None:
        self.types = set(types)
        self.dropped: list[dict[str, Any]] = []

    def keep(self, event: Any) -> bool:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind in self.types:
            self.types.discard(kind)
            self.dropped.append(event)
            return False
        return True

    def filter(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        content = msg.get("content") or {}
        if msg["header"]["msg_type"] != "comm_msg" or content.get("comm_id") != EVENTS_COMM_ID:
            return msg
        data = content.get("data")
        if isinstance(data, dict) and data.get("type") == EVENT_BATCH_TYPE:
            kept = [e for e in data["events"] if self.keep(e)]
            if not kept:
                return None
            return {**msg, "content": {**content, "data": {**data, "events": kept}}}
        return msg if self.keep(data) else None

    def wrap_async(self, get: Callable[..., Any]) -> Callable[..., Any]:
        async def lossy_get(*args: Any, **kwargs: Any) -> dict[str, Any]:
            while True:
                kept = self.filter(await get(*args, **kwargs))
                if kept is not None:
                    return kept

        return lossy_get

    def wrap_blocking(self, get: Callable[..., Any]) -> Callable[..., Any]:
        def lossy_get(*args: Any, **kwargs: Any) -> dict[str, Any]:
            while True:
                kept = self.filter(get(*args, **kwargs))
                if kept is not None:
                    return kept

        return lossy_get


def logged(events: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(e["seq"], e["type"]) for e in events if e.get("type") not in EPHEMERAL]
