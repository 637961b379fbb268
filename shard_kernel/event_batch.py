"""EventBatcher: events emitted in a burst leave the kernel as one IOPub message.

Every IOPub message costs the server a ZMQ receive and a WebSocket write per attached client,
so a streaming agent (hundreds of deltas a second) is relayed far cheaper as fewer, larger
messages. A state change a client acts on (`URGENT`: status, turn_end, asks and their answers,
errors) goes out at once, with whatever waits before it. Any other event that follows a quiet
spell goes out on the next iteration of the timer's loop; one that comes within `BURST_GAP` of
the previous event waits at most `WINDOW` for company, and everything waiting leaves as one
`event_batch` (docs/PROTOCOL.md §4).

The timer runs on the kernel's IOPub thread, not on the agent's loop: a turn often computes for
tens of milliseconds without yielding (building a request, running a tool), and events emitted
just before that must not wait for it. `flush()` (agent thread) sends what is waiting at once:
the kernel calls it before any other message it publishes, so IOPub order is kept. Sends happen
under the batcher's lock, so two flushes from two threads never swap their batches.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from shard_core.protocol.events import EVENT_BATCH_TYPE

URGENT = frozenset(
    {"status", "turn_end", "permission_request", "permission_resolved", "ui_request",
     "ui_resolved", "error", "restarted"}
)  # fmt: skip
"""State changes a client acts on: sent at once, with whatever waits before them."""
BURST_GAP = 0.002
"""Seconds between two events below which the second one is held for a batch."""
WINDOW = 0.002
"""Longest an event waits for others (s)."""

Send = Callable[[dict[str, Any], Any], None]
"""Publish one comm data (an event or a batch) with this parent header."""
Schedule = Callable[[float, Callable[[], None]], None]
"""Run a callback after a delay (seconds) on some loop, from any thread."""


def asyncio_schedule(delay: float, callback: Callable[[], None]) -> None:
    """Schedule on the running asyncio loop (the default, and kernels without an IOPub thread)."""
    loop = asyncio.get_running_loop()
    if delay > 0:
        loop.call_later(delay, callback)
    else:
        loop.call_soon(callback)


class EventBatcher:
    def __init__(self, send: Send, schedule: Schedule | None = None) -> None:
        self._send = send
        self._schedule = schedule or asyncio_schedule
        self._lock = threading.RLock()
        self._pending: list[dict[str, Any]] = []
        self._parent: Any = None
        self._scheduled = False
        self._last = float("-inf")

    def add(self, event: dict[str, Any], parent: Any = None) -> None:
        with self._lock:
            if self._pending and parent is not self._parent:
                self._send_pending()  # a batch has one parent header
            now = time.monotonic()
            burst, self._last = now - self._last < BURST_GAP, now
            self._pending.append(event)
            self._parent = parent
            if event.get("type") in URGENT:
                self._send_pending()
                return
            if self._scheduled:
                return
            self._scheduled = True
        try:
            self._schedule(WINDOW if burst else 0.0, self._on_timer)
        except RuntimeError:  # no loop to flush later: send now
            self._on_timer()

    def flush(self) -> None:
        with self._lock:
            self._send_pending()

    def _on_timer(self) -> None:
        with self._lock:
            self._scheduled = False
            self._send_pending()

    def _send_pending(self) -> None:
        if not self._pending:
            return
        events, self._pending = self._pending, []
        data = events[0] if len(events) == 1 else {"type": EVENT_BATCH_TYPE, "events": events}
        self._send(data, self._parent)
