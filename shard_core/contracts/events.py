"""EventBus: the serializable event stream; every transport is just another subscriber."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from shard_core.protocol.events import Event

EventHandler = Callable[[Event], None]


class EventBus(Protocol):
    def subscribe(self, handler: EventHandler) -> Callable[[], None]:
        """Add a handler; returns the function that removes it."""
        ...

    def publish(self, event: Event) -> None: ...
