"""Language-server diagnostics for Python files: pyright, basedpyright or pylsp over stdio.

The client (`lsp_client.py`) is pygls' `LanguageClient` with the `lsprotocol` types, imported
only when a server starts (lsprotocol takes a second to import). One server per workspace,
started in the background at the session's first turn (`warm`) or else at the first changed
Python file (pyright's first analysis takes seconds; later ones a fraction of one); nothing
waits for it: the code index asks for diagnostics after a tool returned, and the client runs on its
own thread and event loop (`_there`), so its reading and parsing never hold up the agent's loop
(which only awaits the answers). After each change the file is sent (`didOpen`, then
`didChange` with the whole text) and the `publishDiagnostics` for that version awaited. Errors
are kept per file, so `new_errors` can tell what this change introduced. No server installed is
one status line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from shard_core.capabilities.code_index.findings import Finding

if TYPE_CHECKING:  # the client module (and lsprotocol, slow to import) loads with a server
    from shard_core.capabilities.code_index.lsp_client import LanguageServer

log = logging.getLogger("shard.code_index")
T = TypeVar("T")
STOP_SECONDS = 20.0
"""how long `close` waits for the server to stop (its own steps are bounded, then killed)"""

SERVERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pyright-langserver", ("--stdio",)),
    ("basedpyright-langserver", ("--stdio",)),
    ("pylsp", ()),
)
NO_SERVER = (
    "no Python language server found (install pyright, basedpyright or python-lsp-server "
    "for type errors after edits)"
)
SUFFIXES = frozenset({".py", ".pyi"})


def find_server() -> list[str] | None:
    """The first language server on PATH or beside this Python (a venv's bin/)."""
    beside = Path(sys.executable).parent
    for name, args in SERVERS:
        found = shutil.which(name) or shutil.which(name, path=str(beside))
        if found:
            return [found, *args]
    return None


async def _cancel_the_rest() -> None:
    """On the language server's loop: cancel and await every other task there."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _new_server(diagnostics: Diagnostics, command: list[str]) -> LanguageServer:
    """The client, imported on the server's own thread (lsprotocol is slow to import)."""
    from shard_core.capabilities.code_index.lsp_client import LanguageServer

    return LanguageServer(diagnostics.root, command, timeout=diagnostics.timeout)


class Diagnostics:
    """The workspace's server, started on first use; what each change introduced."""

    def __init__(self, root: Path, command: list[str] | None, *, timeout: float = 20.0) -> None:
        self.root = root
        self.command = command
        self.timeout = timeout
        self.server: LanguageServer | None = None
        self.last: dict[str, list[Finding]] = {}
        self._lock = asyncio.Lock()
        self._in_flight = 0
        self._settled = asyncio.Event()
        self._settled.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def begin(self) -> None:
        """A check of changed files is on its way (counted from the moment the change is
        announced, before its task runs): `settled` waits for it."""
        self._in_flight += 1
        self._settled.clear()

    def end(self) -> None:
        self._in_flight = max(self._in_flight - 1, 0)
        if self._in_flight == 0:
            self._settled.set()

    async def settled(self) -> None:
        """Once every announced check has finished (what `last` holds is then current)."""
        await self._settled.wait()

    @property
    def status(self) -> str:
        if self.command is None:
            return NO_SERVER
        name = Path(self.command[0]).name
        if self.server is None:
            return f"{name} (starts at the first turn)"
        if self.server.failed:
            return f"{name}: failed: {self.server.failed}"
        exited = self.server.exited
        return f"{name}: running" if exited is None else f"{name}: exited with status {exited}"

    async def check(self, path: Path) -> tuple[list[Finding], list[Finding]] | None:
        """(new errors, all errors) for a changed Python file; None without a server or
        when the server failed (its status says why)."""
        if self.command is None or path.suffix not in SUFFIXES or not path.is_file():
            return None
        async with self._lock:
            server = await self._server()
            if server is None:
                return None
            try:
                found = await self._there(server.check(path))
            except (TimeoutError, OSError, RuntimeError) as exc:
                log.warning("language server check of %s failed: %s", path, exc)
                return None
        before = {f.key for f in self.last.get(str(path), [])}
        self.last[str(path)] = found
        return [f for f in found if f.key not in before], found

    async def warm(self) -> None:
        """Start the server now (the first check then finds it running)."""
        if self.command is None or self.server is not None:
            return
        async with self._lock:
            await self._server()

    async def _server(self) -> LanguageServer | None:
        if self.server is None:
            assert self.command is not None
            server = self.server = await self._there(_new_server(self, self.command))
            try:
                await self._there(server.start())
            except Exception as exc:  # a server that cannot start is a status, not a failure
                server.failed = f"{type(exc).__name__}: {exc}"
                await self._there(server.stop())
            except asyncio.CancelledError:  # the agent closes: `close` ends the process
                server.failed = "stopped while starting"
                raise
        return None if self.server.failed else self.server

    async def _there(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` on the language server's own loop (its thread) and await it here: the
        client's reading, parsing and bookkeeping never hold up the agent's loop."""
        if self._loop is None:
            loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=loop.run_forever, name="shard-lsp", daemon=True)
            self._thread.start()
            self._loop = loop
        there = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._loop))
        # A caller that is cancelled stops waiting; the work itself is not cancelled midway
        # (pygls' reader fails on the reply to a cancelled request): `close` ends the server.
        return await asyncio.shield(there)

    async def close(self) -> None:
        if self.server is not None:
            try:
                await asyncio.wait_for(self._there(self.server.stop()), STOP_SECONDS)
            except TimeoutError:
                log.warning("language server did not stop in %s s", STOP_SECONDS)
        loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is not None and thread is not None:
            # Work still queued there (a warm-up whose caller was cancelled) is cancelled and
            # awaited first, so no task is destroyed pending when the loop closes.
            with contextlib.suppress(Exception):
                drained = asyncio.run_coroutine_threadsafe(_cancel_the_rest(), loop)
                await asyncio.wait_for(asyncio.wrap_future(drained), STOP_SECONDS)
            loop.call_soon_threadsafe(loop.stop)
            await asyncio.to_thread(thread.join, 10)
            if not thread.is_alive():
                loop.close()
