"""`start_now`: run a coroutine to its first pause at once, in the caller's step.

Python 3.12's eager tasks, for 3.11: a session update is written in the same step as the event
that caused it (the ACP connection writes before it pauses), so a streamed chunk costs no trip
through the event loop and updates leave in the order their events happened. A coroutine that
does pause is finished by a task, exactly as a task would have resumed it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def start_now(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """None when `coro` finished (or failed: its exception is re-raised) without pausing."""
    try:
        waiting = coro.send(None)
    except StopIteration:
        return None
    return asyncio.ensure_future(_resume(coro, waiting))


async def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    while True:
        try:
            if waiting is None:
                await asyncio.sleep(0)  # a bare yield: let the loop go round once
            else:
                await asyncio.wait([waiting])  # a future: resume once it is done
        except asyncio.CancelledError:
            coro.close()
            raise
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
