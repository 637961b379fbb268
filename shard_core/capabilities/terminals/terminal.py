"""One terminal the agent owns: a shell or a command on a pseudo-terminal (ptyprocess).

The process is its own session and process group (ptyprocess calls setsid), so `close` ends
everything started in it, and when the agent's process dies the pty closes and the shell gets
SIGHUP. Output is read on the event loop (`add_reader`) into a TerminalScreen; waiters are
woken on every chunk.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ptyprocess import PtyProcess  # pyright: ignore[reportMissingTypeStubs]

from shard_core.capabilities.terminals.screen import COLUMNS, ROWS, TerminalScreen

READ_CHUNK = 65536


class Terminal:
    def __init__(
        self,
        terminal_id: str,
        name: str,
        command: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        sandbox: str,
        on_exit: Callable[[], object] | None = None,
    ) -> None:
        self.id = terminal_id
        self.name = name
        self.command = command
        self.cwd = cwd
        self.sandbox = sandbox
        self.started = time.time()
        self.screen = TerminalScreen()
        self.exit_status: int | None = None
        self._on_exit = on_exit
        self._changed = asyncio.Event()
        self.version = 0
        """counts the chunks read (and the end): a waiter that saw version v waits for v + 1"""
        self.last_output = time.monotonic()
        spawn: Any = PtyProcess.spawn  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        self.process: Any = spawn(
            list(argv), cwd=str(cwd), env=dict(env), dimensions=(ROWS, COLUMNS)
        )
        self._fd: int = self.process.fd
        os.set_blocking(self._fd, False)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._fd, self._readable)

    @property
    def alive(self) -> bool:
        return self.exit_status is None

    @property
    def pid(self) -> int:
        return int(self.process.pid)

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # EIO: the last process holding the pty's other end has gone
            data = b""
        if data:
            self.screen.feed(data)
            self.last_output = time.monotonic()
        else:
            self._ended()
        self.version += 1
        self._changed.set()

    def _ended(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(self._fd)
        if self.exit_status is None:
            self.exit_status = self._reap()
            if self._on_exit is not None:
                self._on_exit()

    def _reap(self) -> int:
        """The exit code (negative: the signal), reaped through ptyprocess; -1 if unknown."""
        for _ in range(50):
            try:
                alive = self.process.isalive()
            except Exception:  # ptyprocess raises when the child was reaped elsewhere
                return -1
            if not alive:
                if self.process.signalstatus is not None:
                    return -int(self.process.signalstatus)
                return int(self.process.exitstatus or 0)
            time.sleep(0.01)
        return -1

    def try_write(self, data: bytes) -> bytes:
        """Write what the pty takes now without blocking; the rest (usually nothing)."""
        if not self.alive:
            raise OSError("the terminal's process has ended")
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            return data
        return data[written:]

    def write(self, data: bytes) -> None:
        if not self.alive:
            raise OSError("the terminal's process has ended")
        view = memoryview(data)
        deadline = time.monotonic() + 5
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OSError(
                        "the terminal takes no input (its input buffer is full)"
                    ) from None
                time.sleep(0.01)
                continue
            view = view[written:]

    async def changed(self, timeout: float, seen: int | None = None) -> bool:  # noqa: ASYNC109 - a poll
        """Wait for output (or the end) after version `seen` (default: from now); False after
        `timeout`. Passing the version read before a check loses no wake-up in between."""
        seen = self.version if seen is None else seen
        while self.version == seen:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                return self.version != seen
        return True

    def interrupt(self) -> None:
        with contextlib.suppress(OSError):
            self.write(b"\x03")

    async def close(self, grace: float = 1.0) -> None:
        """End the terminal's whole process group: SIGHUP, then SIGKILL after `grace`."""
        if self.alive:
            for sig in (signal.SIGHUP, signal.SIGTERM):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pid, sig)
            end = time.monotonic() + grace
            while self.alive and time.monotonic() < end:
                await self.changed(0.05)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(self._fd)
        if self.exit_status is None:
            self.exit_status = self._reap()
        with contextlib.suppress(OSError):
            self.process.close(force=True)
