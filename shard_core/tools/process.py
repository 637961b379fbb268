"""A shell command's process group: capped output capture, waiting, and killing the whole group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any, Literal

HEAD_BYTES = 20_000
TAIL_BYTES = 20_000
# After the shell exits, how long background jobs may keep our pipe open before they are stopped.
DRAIN_SECONDS = 0.25
EXIT_POLL_SECONDS = 0.02

Outcome = Literal["exited", "timeout", "aborted"]


class CappedOutput:
    """Keeps the first and last bytes of a stream and counts what falls between them."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self._head_cap, self._tail_cap = head, tail
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        self._head += chunk[:room]
        self._tail += chunk[room:] if room > 0 else chunk
        del self._tail[: max(0, len(self._tail) - self._tail_cap)]

    @property
    def omitted(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if self.omitted:
            return f"{head}\n[… {self.omitted} bytes omitted …]\n{tail}"
        return head + tail


async def start_group(*argv: str, **options: Any) -> asyncio.subprocess.Process:
    """Start `argv` as the leader of a new session, so its pid is its process-group id.

    Cancellation while the pipes are still connecting would make asyncio kill only the leader,
    leaving its children running; instead the start is finished and the whole group killed.
    """
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(*argv, start_new_session=True, **options)
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        proc = await starting
        _signal_group(proc.pid, signal.SIGKILL)
        await shell_exit(proc)
        raise


async def pump_into(stream: asyncio.StreamReader, sink: CappedOutput) -> None:
    while chunk := await stream.read(65536):
        sink.add(chunk)


async def wait_for_exit(
    proc: asyncio.subprocess.Process, cancel: asyncio.Event, limit: float
) -> Outcome:
    exited = asyncio.create_task(shell_exit(proc))
    aborted = asyncio.create_task(cancel.wait())
    try:
        await asyncio.wait({exited, aborted}, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
    finally:
        exited.cancel()
        aborted.cancel()
    if exited.done() and not exited.cancelled():
        return "exited"
    return "aborted" if cancel.is_set() else "timeout"


async def shell_exit(proc: asyncio.subprocess.Process) -> int:
    """The shell's exit status, as soon as it has exited.

    Not `proc.wait()`: on Python 3.11 that also waits for every holder of the output pipe to
    close it, so a background job would make a finished command look like it was still running.
    `returncode` is set the moment the child is reaped, and no public event signals it, so poll.
    """
    while proc.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(EXIT_POLL_SECONDS)
    return proc.returncode


async def drained(pump: asyncio.Task[None]) -> bool:
    done, _ = await asyncio.wait({pump}, timeout=DRAIN_SECONDS)
    return bool(done)


async def stop_group(
    proc: asyncio.subprocess.Process, pump: asyncio.Task[None], grace: float
) -> None:
    """End the command's whole process group: SIGTERM and `grace` seconds, then SIGKILL.

    The shell leads its own session, so its pid is the group id, and background jobs it started
    are in the group too.
    """
    if grace > 0:
        _signal_group(proc.pid, signal.SIGTERM)
        exited = asyncio.create_task(shell_exit(proc))
        await asyncio.wait({pump, exited}, timeout=grace)
        exited.cancel()
    _signal_group(proc.pid, signal.SIGKILL)
    await shell_exit(proc)
    # A process that left the group (setsid) may still hold the pipe; stop reading it.
    done, _ = await asyncio.wait({pump}, timeout=DRAIN_SECONDS)
    if not done:
        pump.cancel()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
