"""The AgentWidget's transcript: a bounded, seq-ordered list of event dicts.

Streamed `message_delta`s of one run (same turn, channel and tool call) coalesce into the first
one, so a long answer is one event, not thousands; likewise a call's consecutive `tool_update`s
(the newest partial state takes the previous one's place). Each change is returned as the
operation the browser applies to its own copy (`append`, `delta`, `update`), or `reset` when only
a full sync will do (an event that fills a gap lands in the middle). Events are idempotent by
`seq`. The list is only ever changed in place, so it stays the object the widget's trait holds.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter

from shard_core.protocol import EVENT_TYPES, Event

EventDict = dict[str, Any]
EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
DEFAULT_MAX_EVENTS = 2000


def utf16_length(text: str) -> int:
    """String length as JavaScript counts it, for the browser's delta check."""
    return len(text.encode("utf-16-le")) // 2


def normalize(event: BaseModel | EventDict) -> EventDict | None:
    """A validated event as wire JSON, or None for a type this version does not know."""
    if isinstance(event, BaseModel):
        return event.model_dump(mode="json")
    if not isinstance(event, dict):
        raise TypeError(
            f"an event is a shard_core.protocol Event or a dict, not {type(event).__name__}"
        )
    if event.get("type") not in EVENT_TYPES:
        return None  # the protocol says: ignore event types you do not know
    return EVENTS.validate_python(event).model_dump(mode="json")


@dataclass
class Ops:
    """What changed, for the browser: appended events, delta extensions, or a full reset."""

    accepted: list[EventDict] = field(default_factory=list[EventDict])
    """every event new to the transcript, including deltas merged into an earlier one"""
    appended: list[EventDict] = field(default_factory=list[EventDict])
    deltas: list[tuple[int, str, int]] = field(default_factory=list[tuple[int, str, int]])
    updates: dict[int, EventDict] = field(default_factory=dict[int, EventDict])
    """kept seq → the `tool_update` that now stands there (a call's newer partial state)"""
    reset: bool = False

    def messages(self, max_events: int) -> list[dict[str, Any]]:
        if self.reset:
            return []
        out: list[dict[str, Any]] = [
            {"type": "delta", "seq": seq, "delta": delta, "length": length}
            for seq, delta, length in self.deltas
        ]
        out.extend({"type": "update", "seq": seq, "event": e} for seq, e in self.updates.items())
        if self.appended:
            out.append({"type": "append", "events": self.appended, "max_events": max_events})
        return out


class Transcript:
    """Owns `events` (the very list the widget's trait holds) plus each entry's seq range."""

    def __init__(self, events: list[EventDict], max_events: int = DEFAULT_MAX_EVENTS) -> None:
        if max_events < 1:
            raise ValueError("max_events must be at least 1")
        self.max_events = max_events
        self.events = events
        self._first: list[int] = []
        self._last: list[int] = []
        self.rebind(events)

    def rebind(self, events: list[EventDict]) -> None:
        """Adopts a list assigned from outside (sorted by seq)."""
        self.events = events
        self._first = [int(e["seq"]) for e in events]
        self._last = list(self._first)

    def extend(self, events: list[EventDict]) -> Ops:
        ops = Ops()
        for event in events:
            self._add(event, ops)
        self._trim()
        return ops

    def _add(self, event: EventDict, ops: Ops) -> None:
        seq = int(event["seq"])
        if self._seen(seq):
            return
        ops.accepted.append(event)
        if self._last and seq < self._last[-1]:
            index = bisect_right(self._first, seq)
            self._insert(index, event, seq)
            ops.reset = True
            return
        if self._coalesce(event, seq, ops):
            return
        self._insert(len(self.events), event, seq)
        ops.appended.append(event)

    def _seen(self, seq: int) -> bool:
        if self._first and seq < self._first[0]:
            return True  # older than anything kept: already trimmed away or never wanted
        index = bisect_right(self._first, seq) - 1
        return index >= 0 and seq <= self._last[index]

    def _coalesce(self, event: EventDict, seq: int, ops: Ops) -> bool:
        if self.events and event["type"] == "tool_update":
            return self._replace_update(event, seq, ops)
        if not self.events or event["type"] != "message_delta":
            return False
        last = self.events[-1]
        keys = ("type", "agent_id", "turn_id", "channel", "tool_call_id")
        if any(last.get(key) != event.get(key) for key in keys):
            return False
        last["delta"] += event["delta"]
        self._last[-1] = seq
        if ops.appended and ops.appended[-1] is last:
            return True  # appended in this same batch: the browser gets the merged text
        ops.deltas.append((int(last["seq"]), event["delta"], utf16_length(last["delta"])))
        return True

    def _replace_update(self, event: EventDict, seq: int, ops: Ops) -> bool:
        """A call's newer `tool_update` takes the place of the one just before it (keeping that
        one's seq, like a coalesced delta): a chatty tool stays one event, not thousands."""
        last = self.events[-1]
        keys = ("type", "agent_id", "turn_id", "tool_call_id")
        if any(last.get(key) != event.get(key) for key in keys):
            return False
        last["partial"] = event["partial"]
        self._last[-1] = seq
        if not (ops.appended and ops.appended[-1] is last):
            ops.updates[int(last["seq"])] = last
        return True

    def _insert(self, index: int, event: EventDict, seq: int) -> None:
        self.events.insert(index, event)
        self._first.insert(index, seq)
        self._last.insert(index, seq)

    def _trim(self) -> None:
        extra = len(self.events) - self.max_events
        if extra > 0:
            del self.events[:extra]
            del self._first[:extra]
            del self._last[:extra]
