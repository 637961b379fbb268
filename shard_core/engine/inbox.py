"""Inbox: steers and injected context waiting for the next provider request, with receipts.

A steer is provisional until a request carries it: the loop drains the inbox right before it
builds a request, logs each item as a user message, and only then reports the steer
`admitted` (with the entry that carries it). When the turn ends first, a steer is `rejected`
(the reason says the turn ended, and how) unless it asked to be `queued` for the next turn; a
steer sent with `replace` supersedes every steer still waiting. Injected context never starts a
turn: idle, it is logged at once; during a turn it waits here so the log keeps the order the
model sees (nothing is appended while a request is in flight).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shard_core.engine.events import EventStream
from shard_core.protocol.events import SteerReceiptEvent, SteerStatus
from shard_core.types import ContextKind, ImageBlock


@dataclass(frozen=True, slots=True)
class Steer:
    steer_id: str
    text: str
    queue: bool
    images: tuple[ImageBlock, ...] = ()


@dataclass(frozen=True, slots=True)
class Injection:
    text: str
    kind: ContextKind
    label: str | None


Item = Steer | Injection


def new_steer_id() -> str:
    return f"steer-{uuid.uuid4().hex[:12]}"


def context_text(text: str, kind: ContextKind, label: str | None) -> str:
    """How injected context reads to the model: tagged, so it is not taken for a request."""
    name = ' label="' + label.replace('"', "'") + '"' if label else ""
    return f'<context kind="{kind}"{name}>\n{text}\n</context>'


class Inbox:
    def __init__(self, events: EventStream) -> None:
        self._events = events
        self._items: list[Item] = []

    def __len__(self) -> int:
        return len(self._items)

    def steer(
        self,
        text: str,
        *,
        running: bool,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
        images: Sequence[ImageBlock] = (),
    ) -> str:
        """Accept a steer for the next request (its images after its text); returns its id
        (receipts name it)."""
        steer = Steer(steer_id or new_steer_id(), text, queue, tuple(images))
        if replace:
            for old in self._take(lambda i: isinstance(i, Steer)):
                assert isinstance(old, Steer)
                self._receipt(old, "superseded", reason=f"replaced by {steer.steer_id}")
        if not running and not queue:
            self._receipt(steer, "rejected", reason="no turn was running (send it as a prompt)")
        else:
            if not running:
                self._receipt(steer, "queued", reason="no turn was running: waits for the next")
            self._items.append(steer)
        return steer.steer_id

    def inject(self, text: str, kind: ContextKind, label: str | None) -> None:
        self._items.append(Injection(text, kind, label))

    def drain(self) -> list[Item]:
        """Everything waiting, oldest first; the caller logs it and calls `admitted`."""
        items, self._items = self._items, []
        return items

    def admitted(self, steer: Steer, entry_id: str, turn_id: str) -> None:
        self._receipt(steer, "admitted", entry_id=entry_id, turn_id=turn_id)

    def turn_ended(self, turn_id: str, how: str) -> list[Injection]:
        """Settle what the turn did not carry: queued steers wait, the rest are rejected.
        Returns the injected context still waiting (the caller logs it now: idle context is
        logged at once)."""
        kept: list[Item] = []
        for item in self._items:
            if isinstance(item, Steer) and item.queue:
                reason = f"the turn ended ({how}) first: queued for the next turn"
                self._receipt(item, "queued", reason=reason, turn_id=turn_id)
                kept.append(item)
            elif isinstance(item, Steer):
                reason = f"the turn ended ({how}) before another provider request"
                self._receipt(item, "rejected", reason=reason, turn_id=turn_id)
        injected = [i for i in self._items if isinstance(i, Injection)]
        self._items = kept
        return injected

    def _take(self, matches: Callable[[Item], bool]) -> list[Item]:
        taken = [i for i in self._items if matches(i)]
        self._items = [i for i in self._items if not matches(i)]
        return taken

    def _receipt(
        self,
        steer: Steer,
        status: SteerStatus,
        *,
        reason: str | None = None,
        entry_id: str | None = None,
        turn_id: str | None = None,
    ) -> None:
        self._events.emit(
            SteerReceiptEvent,
            steer_id=steer.steer_id,
            status=status,
            text=steer.text,
            images=list(steer.images),
            reason=reason,
            entry_id=entry_id,
            turn_id=turn_id,
        )
