"""CellRun: one cell of a `shard batch` run, bounded whatever its kernel does, and its outcome.

nbclient's async client waits for the cell's reply; beside it this module watches the cell's
`--timeout`, a permission ask still open after the permission timeout (`--policy queue` waits
for a client, and no client can reach a batch run's private kernel), SIGINT/SIGTERM, and the
agent's event log — which says whether denials blocked the turn or the model failed. A cell it
stops has its turn interrupted through the kernel (tools cancelled, asks withdrawn); a kernel
that ignores the interrupt for GRACE seconds is left for the caller to kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from pydantic import ValidationError

from shard_core.engine.event_log import EVENT_ADAPTER
from shard_core.protocol.events import (
    Event,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from shard_kernel.denials import DENIED_PREFIX, DenialWatch, denied
from shard_kernel.exit_codes import ExitCode

__all__ = ["GRACE", "CellRun", "EventTail", "Limits", "Outcome", "StopSignals", "death_reason"]

GRACE = 10.0
"""seconds a stopped cell's kernel gets to end the turn after the interrupt"""
TICK = 0.2
FIRST = asyncio.FIRST_COMPLETED


@dataclass
class Outcome:
    state: str
    """ok, failed, blocked, model error, timed out, interrupted, kernel died"""
    code: ExitCode
    note: str = ""
    stop: bool = False
    """the run ends after this cell"""
    seconds: float = 0.0


@dataclass
class Limits:
    timeout: float
    ask_timeout: float | None
    """how long an open ask may wait (`--policy queue`; other policies answer in the kernel)"""


class StopSignals:
    """SIGINT and SIGTERM as a request to stop the run cleanly; a second one skips the grace."""

    def __init__(self) -> None:
        self.received: str | None = None
        self.event = asyncio.Event()
        self.again = asyncio.Event()
        self._installed: list[signal.Signals] = []

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self._on_signal, sig)
            except (RuntimeError, ValueError, NotImplementedError):  # not the main thread
                continue
            self._installed.append(sig)

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed.clear()

    def _on_signal(self, sig: signal.Signals) -> None:
        if self.received is not None:
            self.again.set()
            return
        self.received = sig.name
        self.event.set()


class EventTail:
    """The agent's event log (SHARD_HOME/agents/ID/events.jsonl), read as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def skip(self) -> None:
        with contextlib.suppress(OSError):
            self.offset = self.path.stat().st_size

    def read(self) -> list[Event]:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:  # not written yet: the agent starts with the first cell
            return []
        complete = data[: data.rfind(b"\n") + 1]  # a line being written is read next time
        self.offset += len(complete)
        events: list[Event] = []
        for line in complete.splitlines():
            with contextlib.suppress(ValidationError, ValueError):
                events.append(EVENT_ADAPTER.validate_json(line))
        return events


@dataclass
class TurnFacts:
    """What one cell's events say: denials, asks still open, how the turn ended."""

    denials: DenialWatch = field(default_factory=DenialWatch)
    open_asks: dict[str, tuple[str, float]] = field(default_factory=dict[str, tuple[str, float]])
    """request id → (tool, when this run first saw it)"""
    last_denial: str = ""
    end: TurnEndEvent | None = None

    def add(self, events: list[Event]) -> None:
        for event in events:
            self.denials(event)
            if isinstance(event, PermissionRequestEvent):
                self.open_asks[event.request_id] = (event.tool, time.monotonic())
            elif isinstance(event, PermissionResolvedEvent):
                self.open_asks.pop(event.request_id, None)
            elif isinstance(event, ToolResultEvent) and denied(event.result):
                why = event.result.text.removeprefix(DENIED_PREFIX).strip()
                self.last_denial = f"{event.name} was {why}" if why.startswith("denied") else why
            elif isinstance(event, TurnEndEvent):
                self.end = event

    def stale_ask(self, limit: float) -> str | None:
        """The tool of an ask open longer than `limit` seconds, if any."""
        now = time.monotonic()
        return next((tool for tool, seen in self.open_asks.values() if now - seen >= limit), None)


class CellRun:
    """Runs cells one at a time on a started client; each returns its Outcome."""

    def __init__(
        self, client: NotebookClient, tail: EventTail, limits: Limits, signals: StopSignals
    ) -> None:
        self.client = client
        self.tail = tail
        self.limits = limits
        self.signals = signals

    async def run(self, index: int, cell: Any, count: int) -> Outcome:
        started = time.monotonic()
        self.tail.skip()
        facts = TurnFacts()
        task = asyncio.ensure_future(
            self.client.async_execute_cell(cell, index, execution_count=count)
        )
        stop = await self._watch(task, facts, started)
        if stop is not None:
            await self._interrupt(task)
        error = await _settle(task)
        facts.add(self.tail.read())
        outcome = stop or await self._judge(error, facts)
        outcome.seconds = time.monotonic() - started
        return outcome

    async def _watch(
        self, task: asyncio.Future[Any], facts: TurnFacts, started: float
    ) -> Outcome | None:
        """None when the cell ends by itself; else why this run stops it."""
        stopping = asyncio.ensure_future(self.signals.event.wait())
        try:
            while not task.done():
                left = started + self.limits.timeout - time.monotonic()
                await asyncio.wait(
                    {task, stopping}, timeout=max(0.0, min(TICK, left)), return_when=FIRST
                )
                facts.add(self.tail.read())
                if self.signals.received is not None and not task.done():
                    return _stopped("interrupted", ExitCode.INTERRUPTED, started,
                                    f"{self.signals.received} received")  # fmt: skip
                if time.monotonic() - started >= self.limits.timeout and not task.done():
                    return _stopped("timed out", ExitCode.TIMED_OUT, started,
                                    f"it ran past --timeout {self.limits.timeout:g}s")  # fmt: skip
                ask = self._stale(facts)
                if ask is not None and not task.done():
                    return _stopped("blocked", ExitCode.BLOCKED, started, ask)
            return None
        finally:
            stopping.cancel()

    def _stale(self, facts: TurnFacts) -> str | None:
        if self.limits.ask_timeout is None:
            return None
        tool = facts.stale_ask(self.limits.ask_timeout)
        if tool is None:
            return None
        return (
            f"its permission ask ({tool}) went unanswered for {self.limits.ask_timeout:g}s: "
            "--policy queue waits for a client, and none can attach to a batch run"
        )

    async def _interrupt(self, task: asyncio.Future[Any]) -> None:
        """Stop the turn through the kernel; after GRACE (or a second signal) stop waiting."""
        km: Any = self.client.km
        with contextlib.suppress(Exception):  # a kernel already gone: nothing to interrupt
            await km.interrupt_kernel()
        again = asyncio.ensure_future(self.signals.again.wait())
        try:
            await asyncio.wait({task, again}, timeout=GRACE, return_when=FIRST)
        finally:
            again.cancel()
        if not task.done():
            task.cancel()  # nbclient reports this as DeadKernelError; _settle takes it

    async def _judge(self, error: BaseException | None, facts: TurnFacts) -> Outcome:
        if isinstance(error, DeadKernelError):
            reason = await death_reason(self.client.km)
            return Outcome("kernel died", ExitCode.KERNEL_DIED, reason, stop=True)
        end = facts.end
        if end is not None and end.reason == "error":
            return Outcome("model error", ExitCode.MODEL_ERROR, end.error or "", stop=True)
        if error is not None:
            return Outcome("failed", ExitCode.FAILED, _last_line(error), stop=True)
        if facts.denials.blocked:
            why = facts.last_denial or "a tool call was denied"
            return Outcome("blocked", ExitCode.BLOCKED, f"{why}; nothing changed after it")
        return Outcome("ok", ExitCode.OK)


def _stopped(state: str, code: ExitCode, started: float, why: str) -> Outcome:
    after = time.monotonic() - started
    note = f"{why} after {after:.1f}s: the turn was stopped here, later cells did not run"
    return Outcome(state, code, note, stop=True)


async def _settle(task: asyncio.Future[Any]) -> BaseException | None:
    """How the cell's task ended: None, or its exception (a cancellation of this run's own task
    still propagates: `wait` does not raise the task's outcome)."""
    await asyncio.wait({task})
    return asyncio.CancelledError() if task.cancelled() else task.exception()


def _last_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


async def death_reason(km: Any) -> str:
    """How the kernel process ended, from its exit status."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    status = process.poll() if process is not None else None
    if status is None:
        return "the kernel died"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"the kernel was killed by {name}"
    return f"the kernel exited with status {status}"
