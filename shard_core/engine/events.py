"""EventStream: stamps agent_id, seq and ts on events and fans them out to subscribers.

With `secrets` set (the session sets its own), every known secret value is replaced in an event
before any subscriber sees it: the clients, the event log, `--json` output and the extensions.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from shard_core.protocol.events import Event

if TYPE_CHECKING:  # the kernel loads this module at start; the session brings the secrets
    from shard_core.types.secrets import KnownSecrets

E = TypeVar("E", bound=Event)


class EventStream:
    """The agent's one event bus. `seq` continues from `start_seq` (restored from the log)."""

    def __init__(self, agent_id: str, start_seq: int = 0) -> None:
        self.agent_id = agent_id
        self._next = start_seq
        self._handlers: list[Callable[[Event], None]] = []
        self._queue: deque[Event] = deque()
        self._delivering = False
        self.secrets: KnownSecrets | None = None

    @property
    def last_seq(self) -> int:
        return self._next - 1

    def subscribe(self, handler: Callable[[Event], None]) -> Callable[[], None]:
        self._handlers.append(handler)
        return lambda: self._handlers.remove(handler) if handler in self._handlers else None

    def publish(self, event: Event) -> None:
        """Deliver in seq order even when a handler emits: nested events wait their turn."""
        self._queue.append(event)
        if self._delivering:
            return
        self._delivering = True
        try:
            while self._queue:
                current = self._queue.popleft()
                for handler in list(self._handlers):
                    handler(current)
        finally:
            self._delivering = False

    def emit(self, cls: type[E], **fields: Any) -> E:
        """Build an event of type `cls` with the next seq and publish it."""
        event = cls(agent_id=self.agent_id, seq=self._next, ts=time.time(), **fields)
        if self.secrets is not None:
            event = self.secrets.redact_model(event)
        self._next += 1
        self.publish(event)
        return event
