"""The Notification hook's idle trigger: once the agent has waited `notifications.idle_seconds`
(config.json, default 60) for a person, its Notification hooks get `idle_prompt`, once a wait,
as Claude Code's "Claude is waiting for your input".

A wait is a finished turn (waiting for the next prompt) or an open question (a permission
request, an `ask_user` question); it ends when a prompt arrives or the question is answered.
Several waits at once are one wait, timed from its start; the message names the latest.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

DEFAULT_SECONDS = 60.0
PROMPT = "prompt"
"""the key of the wait for the next prompt"""

Fire = Callable[[str], Coroutine[Any, Any, None]]


class IdleWatch:
    def __init__(self, seconds: float, fire: Fire) -> None:
        self.seconds = seconds
        """0: never"""
        self._fire = fire
        self._waits: dict[str, str] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._fired = False
        self._task: asyncio.Task[None] | None = None

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def wait(self, key: str, message: str) -> None:
        """A wait for a person starts (or another one joins the wait under way)."""
        self._waits.pop(key, None)
        self._waits[key] = message
        if self._timer is not None or self._fired or self.seconds <= 0:
            return
        with contextlib.suppress(RuntimeError):  # no loop: nothing to wait in
            self._timer = asyncio.get_running_loop().call_later(self.seconds, self._due)

    def done(self, key: str | None = None) -> None:
        """`key`'s wait ended (None: every wait: a prompt arrived, the agent closes)."""
        if key is None:
            self._waits.clear()
        else:
            self._waits.pop(key, None)
        if self._waits:
            return
        self._fired = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        self.done()
        if self._task is not None:
            self._task.cancel()

    def _due(self) -> None:
        self._timer, self._fired = None, True
        if self._waits:
            message = next(reversed(self._waits.values()))
            self._task = asyncio.get_running_loop().create_task(self._fire(message))
