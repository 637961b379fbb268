"""One terminal the agent owns: what every terminal has (`Terminal`: its screen, its version,
waiting for output) and the kernel-owned kind (`PtyTerminal`, ptyprocess).

A PtyTerminal's process is its own session and process group (ptyprocess calls setsid), so
`close` ends everything started in it, and when the agent's process dies the pty closes and
the shell gets SIGHUP. Output is read on the event loop (`add_reader`) into a TerminalScreen;
waiters are woken on every chunk. The other kind, a jupyter_server terminal a person can open
in Lab, is `server.py`'s ServerTerminal.
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

from shard_core.capabilities.terminals.screen import COLUMNS, ROWS, TerminalScreen

READ_CHUNK = 65536


class Terminal:
    """A terminal's state and screen; its kind fills `pid`, `send` and `close`."""

    server_name: str | None = None
    """the jupyter_server terminal's name (None: the kernel's own pty)"""

    def __init__(
        self,
        terminal_id: str,
        name: str,
        command: str,
        *,
        cwd: Path,
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
        self.ended = False
        self._on_exit = on_exit
        self._waiters: list[asyncio.Future[None]] = []
        """woken at the next chunk: a bare future and a timer, not `wait_for`'s task per wait
        (half of a round trip's own time in bench/terminal_roundtrip.py)"""
        self.version = 0
        """counts the chunks read (and the end): a waiter that saw version v waits for v + 1"""
        self.last_output = time.monotonic()

    @property
    def alive(self) -> bool:
        return not self.ended

    @property
    def state(self) -> str:
        if self.alive:
            return "running"
        return "ended" if self.exit_status is None else f"exited ({self.exit_status})"

    @property
    def pid(self) -> int:
        raise NotImplementedError

    def _output(self, data: bytes) -> None:
        self.screen.feed(data)
        self.last_output = time.monotonic()
        self._bump()

    def _finish(self, status: int | None) -> None:
        if not self.ended:
            self.ended, self.exit_status = True, status
            if self._on_exit is not None:
                self._on_exit()
        self._bump()

    def _bump(self) -> None:
        self.version += 1
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def send(self, data: bytes) -> None:
        """Type `data` into the terminal; OSError when it has ended or takes no input."""
        raise NotImplementedError

    async def close(self, grace: float = 1.0) -> None:
        raise NotImplementedError

    async def changed(self, timeout: float, seen: int | None = None) -> bool:  # noqa: ASYNC109 - a poll
        """Wait for output (or the end) after version `seen` (default: from now); False after
        `timeout`. Passing the version read before a check loses no wake-up in between."""
        seen = self.version if seen is None else seen
        if self.version != seen:
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.append(waiter)
        timer = loop.call_later(timeout, lambda: waiter.done() or waiter.set_result(None))
        try:
            await waiter
        finally:
            timer.cancel()
            if waiter in self._waiters:
                self._waiters.remove(waiter)
        return self.version != seen


class PtyTerminal(Terminal):
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
        super().__init__(terminal_id, name, command, cwd=cwd, sandbox=sandbox, on_exit=on_exit)
        from ptyprocess import PtyProcess  # pyright: ignore[reportMissingTypeStubs]

        spawn: Any = PtyProcess.spawn  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        self.process: Any = spawn(
            list(argv), cwd=str(cwd), env=dict(env), dimensions=(ROWS, COLUMNS)
        )
        self._fd: int = self.process.fd
        os.set_blocking(self._fd, False)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._fd, self._readable)

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
            self._output(data)
        else:
            self._ended()

    def _ended(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(self._fd)
        if self.ended:
            self._bump()
        else:
            self._finish(self._reap())

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

    async def send(self, data: bytes) -> None:
        rest = self.try_write(data)
        if rest:  # a full input buffer (a program not reading): wait off the loop
            await asyncio.to_thread(self.write, rest)

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
        if not self.ended:
            self._finish(self._reap())
        with contextlib.suppress(OSError):
            self.process.close(force=True)
