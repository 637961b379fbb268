"""A run: the person's prompt's turn and each turn an `after_turn` handler adds (goal.continue),
and a run's events as an async iterator that ends with its last `turn_end`."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Protocol

from shard_core.engine.events import EventStream
from shard_core.engine.hook_points import HookPoints, TurnDone
from shard_core.protocol.events import Event, TurnEndEvent, TurnStartEvent
from shard_core.types.usage import Usage


class Running(Protocol):
    """What of a session a run reads (the AgentSession)."""

    @property
    def abort_requested(self) -> bool: ...

    @property
    def hook_points(self) -> HookPoints: ...

    @property
    def events(self) -> EventStream: ...


async def chained(
    session: Running, first: TurnEndEvent, turn: Callable[[str], Awaitable[TurnEndEvent]]
) -> TurnEndEvent:
    """After the first turn, one more turn for each prompt `after_turn` answers, until none
    does or the run is stopped; returns the last turn's end."""
    started, turns, usage, end = time.monotonic(), 1, Usage(), first
    while not session.abort_requested:
        usage = usage + end.usage
        done = TurnDone(end, turns, usage, time.monotonic() - started)
        follow = await session.hook_points.after_turn(done)
        if follow is None or session.abort_requested:
            break
        turns += 1
        end = await turn(follow)
    return end


async def events_of(
    session: Running, run: Coroutine[Any, Any, TurnEndEvent]
) -> AsyncIterator[Event]:
    """The run's events as they happen, ending with its last `turn_end`: what follows a turn's
    end is held until the next turn starts (and dropped after the last one)."""
    queue: asyncio.Queue[Event] = asyncio.Queue()
    unsubscribe = session.events.subscribe(queue.put_nowait)
    runner = asyncio.create_task(run)
    held: list[Event] | None = None
    try:
        while not (runner.done() and queue.empty()):
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, runner}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                getter.cancel()
                continue
            event = getter.result()
            if held is not None and not isinstance(event, TurnStartEvent):
                held.append(event)
                continue
            for earlier in held or ():
                yield earlier
            held = [] if isinstance(event, TurnEndEvent) else None
            yield event
        await runner
    finally:
        unsubscribe()
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
