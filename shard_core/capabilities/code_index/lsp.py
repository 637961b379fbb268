"""Language-server diagnostics for Python files: pyright, basedpyright or pylsp over stdio.

The client (`lsp_client.py`) is pygls' `LanguageClient` with the `lsprotocol` types, imported
only when a server starts (lsprotocol takes a second to import). One server per workspace,
started at the first changed Python file (pyright's first analysis takes seconds; later ones
a fraction of one). After each change the file is sent (`didOpen`, then `didChange` with the
whole text) and the `publishDiagnostics` for that version awaited. Errors are kept per file, so
`new_errors` can tell what this change introduced. No server installed is one status line.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the client module (and lsprotocol, slow to import) loads with a server
    from shard_core.capabilities.code_index.lsp_client import LanguageServer

log = logging.getLogger("shard.code_index")

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


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    severity: str
    message: str
    source: str

    def text(self) -> str:
        message = " ".join(self.message.replace("\xa0", " ").split())
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {message} [{self.source}]"

    @property
    def key(self) -> tuple[str, str]:
        """What identifies an error across edits that move it: its message, not its line."""
        return (self.severity, self.message)


def find_server() -> list[str] | None:
    """The first language server on PATH or beside this Python (a venv's bin/)."""
    beside = Path(sys.executable).parent
    for name, args in SERVERS:
        found = shutil.which(name) or shutil.which(name, path=str(beside))
        if found:
            return [found, *args]
    return None


class Diagnostics:
    """The workspace's server, started on first use; what each change introduced."""

    def __init__(self, root: Path, command: list[str] | None, *, timeout: float = 20.0) -> None:
        self.root = root
        self.command = command
        self.timeout = timeout
        self.server: LanguageServer | None = None
        self.last: dict[str, list[Finding]] = {}
        self._lock = asyncio.Lock()

    @property
    def status(self) -> str:
        if self.command is None:
            return NO_SERVER
        name = Path(self.command[0]).name
        if self.server is None:
            return f"{name} (starts at the first changed Python file)"
        return f"{name}: failed: {self.server.failed}" if self.server.failed else f"{name}: running"

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
                found = await server.check(path)
            except (TimeoutError, OSError, RuntimeError) as exc:
                log.warning("language server check of %s failed: %s", path, exc)
                return None
        before = {f.key for f in self.last.get(str(path), [])}
        self.last[str(path)] = found
        return [f for f in found if f.key not in before], found

    async def _server(self) -> LanguageServer | None:
        if self.server is None:
            from shard_core.capabilities.code_index.lsp_client import LanguageServer

            assert self.command is not None
            self.server = LanguageServer(self.root, self.command, timeout=self.timeout)
            try:
                await self.server.start()
            except Exception as exc:  # a server that cannot start is a status, not a failure
                self.server.failed = f"{type(exc).__name__}: {exc}"
                await self.server.stop()
        return None if self.server.failed else self.server

    async def close(self) -> None:
        if self.server is not None:
            await self.server.stop()
