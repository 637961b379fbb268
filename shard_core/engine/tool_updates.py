"""ToolUpdates: a running tool's `on_update` calls, throttled into `tool_update` events.

A chatty tool (a cell printing in a tight loop) may report its partial state thousands of times a
second; clients only need the newest. So at most one event leaves per `interval` per call: the
first at once, later ones held, and only the latest held state is sent when the interval ends.
`close()` (the tool returned) drops whatever is still held, so no update ever follows the call's
`tool_result`: the final result always wins.

`push` may be called from another thread (a tool reading a kernel's output there): it hops onto
the loop the call runs on, so events are emitted in order with the rest of the turn's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from shard_core.types import ToolResult

MIN_INTERVAL = 0.1
"""Seconds between two updates of one call (at most ~10 a second)."""

Emit = Callable[[ToolResult], None]


class ToolUpdates:
    def __init__(
        self,
        emit: Emit,
        interval: float = MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self._interval = interval
        self._clock = clock
        self._loop = asyncio.get_running_loop()
        self._last: float | None = None
        self._held: ToolResult | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    def push(self, partial: ToolResult) -> None:
        """The tool's `ToolContext.on_update`."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not self._loop:
            self._loop.call_soon_threadsafe(self._push, partial)
        else:
            self._push(partial)

    def _push(self, partial: ToolResult) -> None:
        if self._closed:
            return
        now = self._clock()
        if self._timer is None and (self._last is None or now - self._last >= self._interval):
            self._send(partial, now)
            return
        self._held = partial
        if self._timer is None:
            wait = self._interval - (now - (self._last or now))
            self._timer = self._loop.call_later(max(wait, 0.0), self._release)

    def _release(self) -> None:
        self._timer = None
        held, self._held = self._held, None
        if held is not None and not self._closed:
            self._send(held, self._clock())

    def _send(self, partial: ToolResult, now: float) -> None:
        self._last = now
        self._emit(partial)

    def close(self) -> None:
        """The call is over: nothing held is sent, nothing pushed later either."""
        self._closed = True
        self._held = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
