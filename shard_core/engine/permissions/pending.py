"""PendingRequests: open permission questions and their one answer — first valid answer wins.

Resolution is a compare-and-set under a lock: the first answer for an open request is stored and
wakes the waiting gate; every later one is refused with "already decided by <who>". Observers
never answer. Withdrawing a request (an interrupted turn) resolves it as a deny from "abort".
Answers may come from any thread (a comm handler) or from the event loop itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from dataclasses import dataclass

from shard_core.contracts import PermissionAnswer, PermissionPrompt

__all__ = ["PendingRequests", "RespondResult", "Role"]

Role = str  # "interactive" | "observer"; only interactive clients answer
_REMEMBER = 256


@dataclass(frozen=True)
class RespondResult:
    """What a responder is told: whether its answer decided the request, and why not."""

    accepted: bool
    message: str


@dataclass
class _Open:
    prompt: PermissionPrompt
    future: asyncio.Future[PermissionAnswer]
    loop: asyncio.AbstractEventLoop


class PendingRequests:
    """Open requests by id, plus the answers of the most recently decided ones."""

    def __init__(self, remember: int = _REMEMBER) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, _Open] = {}
        self._decided: OrderedDict[str, PermissionAnswer] = OrderedDict()
        self._remember = remember

    def open(self, prompt: PermissionPrompt) -> None:
        """Register a question; call from the event loop that will wait for it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if prompt.request_id in self._open or prompt.request_id in self._decided:
                raise ValueError(f"permission request {prompt.request_id} already exists")
            self._open[prompt.request_id] = _Open(prompt, loop.create_future(), loop)

    def prompts(self) -> list[PermissionPrompt]:
        """Open questions, oldest first — what a client that attaches late must be shown."""
        with self._lock:
            return [entry.prompt for entry in self._open.values()]

    def get(self, request_id: str) -> PermissionPrompt | None:
        with self._lock:
            entry = self._open.get(request_id)
            return entry.prompt if entry else None

    def decided(self, request_id: str) -> PermissionAnswer | None:
        with self._lock:
            return self._decided.get(request_id)

    def answer(self, request_id: str, answer: PermissionAnswer, role: Role) -> RespondResult:
        """A client's answer: only interactive clients may give one."""
        if role != "interactive":
            return RespondResult(False, f"{role} clients cannot answer permission requests")
        return self.resolve(request_id, answer)

    def withdraw(
        self, request_id: str, reason: str = "withdrawn", by: str = "abort"
    ) -> RespondResult:
        """Take the question back: it resolves as a deny with source "abort"."""
        answer = PermissionAnswer("deny", decided_by=by, source="abort", reason=reason)
        return self.resolve(request_id, answer)

    def resolve(self, request_id: str, answer: PermissionAnswer) -> RespondResult:
        """Compare-and-set: store `answer` if the request is still open."""
        with self._lock:
            earlier = self._decided.get(request_id)
            if earlier is not None:
                return RespondResult(False, _already(earlier))
            entry = self._open.pop(request_id, None)
            if entry is None:
                return RespondResult(False, f"no open permission request {request_id}")
            self._decided[request_id] = answer
            while len(self._decided) > self._remember:
                self._decided.popitem(last=False)
        _wake(entry, answer)
        return RespondResult(True, f"{answer.decision} accepted for {request_id}")

    async def wait(self, request_id: str, seconds: float | None) -> PermissionAnswer | None:
        """The answer, or None when `seconds` pass first (None: wait for ever)."""
        with self._lock:
            entry = self._open.get(request_id)
            if entry is None:
                return self._decided.get(request_id)
        try:
            return await asyncio.wait_for(asyncio.shield(entry.future), seconds)
        except TimeoutError:
            return None


def _already(answer: PermissionAnswer) -> str:
    return f"already decided by {answer.decided_by} ({answer.decision})"


def _wake(entry: _Open, answer: PermissionAnswer) -> None:
    def settle() -> None:
        if not entry.future.done():
            entry.future.set_result(answer)

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is entry.loop:
        settle()
    elif not entry.loop.is_closed():
        entry.loop.call_soon_threadsafe(settle)
