"""EventHandlers: delivers the agent's events to the handlers extensions registered with `on`.

A handler is sync or async and subscribes to one event type or `*`. A handler that raises (or
whose coroutine raises) is reported with its extension's identity and never breaks the turn:
the bus keeps delivering and the loop never sees the exception.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from shard_core.protocol.events import Event

log = logging.getLogger("shard.extensions")

ALL_EVENTS = "*"

Report = Callable[[str, str], None]
"""`report(extension, message)`: where a failing handler is recorded (the host's diagnostics)."""


class Handler(NamedTuple):
    event: str
    handler: Callable[..., Any]
    extension: str


class EventHandlers:
    """Subscribe `deliver` to an EventStream; `drain` awaits async handlers still running."""

    def __init__(self, handlers: Sequence[Handler], report: Report) -> None:
        self._handlers = handlers
        self._report = report
        self._pending: set[asyncio.Task[None]] = set()

    def deliver(self, event: Event) -> None:
        for entry in list(self._handlers):
            if entry.event != ALL_EVENTS and entry.event != event.type:
                continue
            try:
                result = entry.handler(event)
            except Exception as exc:
                self._failed(entry, event, exc)
                continue
            if inspect.isawaitable(result):
                self._start(entry, event, result)

    async def drain(self) -> None:
        """Wait for the async handlers already started (shutdown, tests)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def _start(self, entry: Handler, event: Event, awaitable: Any) -> None:
        async def run() -> None:
            try:
                await awaitable
            except Exception as exc:
                self._failed(entry, event, exc)

        try:
            task = asyncio.get_running_loop().create_task(run())
        except RuntimeError:  # no loop (a synchronous caller): run it to the end here
            asyncio.run(run())
            return
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _failed(self, entry: Handler, event: Event, exc: Exception) -> None:
        message = f"handler for {event.type} failed: {type(exc).__name__}: {exc}"
        log.warning("extension %s: %s", entry.extension, message)
        self._report(entry.extension, message)
