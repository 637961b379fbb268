"""Language-server diagnostics for Python files: pyright, basedpyright or pylsp over stdio.

The client is pygls' `LanguageClient` with the `lsprotocol` types. One server per workspace,
started at the first changed Python file (pyright's first analysis takes seconds; later ones
a fraction of one). After each change the file is sent (`didOpen`, then `didChange` with the
whole text) and the `publishDiagnostics` for that version awaited. Errors are kept per file, so
`new_errors` can tell what this change introduced. No server installed is one status line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from lsprotocol import types as lsp

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
_QUIET = ("window/logMessage", "window/showMessage", "$/progress", "telemetry/event")


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


class LanguageServer:
    """One running server for one workspace."""

    def __init__(self, root: Path, command: list[str], *, timeout: float = 20.0) -> None:
        self.root = root
        self.command = command
        self.timeout = timeout
        self.name = Path(command[0]).name
        self._client: Any = None
        self._versions: dict[str, int] = {}
        self._published: dict[str, asyncio.Queue[lsp.PublishDiagnosticsParams]] = {}
        self.errors: dict[str, list[Finding]] = {}
        self.failed: str | None = None

    async def start(self) -> None:
        from pygls.lsp.client import LanguageClient  # only when a server is there to talk to

        client = LanguageClient("shard", "1")

        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self._on_publish(params)  # (pygls marks the handler: a plain function, not a method)

        client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
        for method in _QUIET:
            client.feature(method)(_ignoring())
        start = cast(Callable[..., Awaitable[None]], client.start_io)  # pyright: ignore[reportUnknownMemberType]
        await start(*self.command, cwd=str(self.root))
        uri = self.root.as_uri()
        await asyncio.wait_for(
            client.initialize_async(
                lsp.InitializeParams(
                    process_id=os.getpid(),  # the server exits when this process is gone
                    root_uri=uri,
                    capabilities=lsp.ClientCapabilities(),
                    workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
                )
            ),
            self.timeout,
        )
        client.initialized(lsp.InitializedParams())
        self._client = client

    def _on_publish(self, params: lsp.PublishDiagnosticsParams) -> None:
        queue = self._published.setdefault(params.uri, asyncio.Queue())
        queue.put_nowait(params)

    async def check(self, path: Path) -> list[Finding]:
        """Send the file's current text and return the errors the server publishes for it."""
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8", errors="replace")
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        queue = self._published.setdefault(uri, asyncio.Queue())
        while not queue.empty():
            queue.get_nowait()
        if version == 1:
            item = lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            self._client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        else:
            self._client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        async with asyncio.timeout(self.timeout):
            while True:
                published = await queue.get()
                if published.version in (None, version):
                    return self._findings(path, published.diagnostics)

    def _findings(self, path: Path, diagnostics: Sequence[lsp.Diagnostic]) -> list[Finding]:
        shown = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else path
        return [
            Finding(
                str(shown),
                d.range.start.line + 1,
                d.range.start.character + 1,
                "error",
                d.message,
                d.source or self.name,
            )
            for d in diagnostics
            if d.severity in (None, lsp.DiagnosticSeverity.Error)
        ]

    async def stop(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            await asyncio.wait_for(client.shutdown_async(None), 5)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 5)
        except (TimeoutError, RuntimeError, ConnectionError):
            server = getattr(client, "_server", None)
            if server is not None and server.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    server.kill()
                await server.wait()


def _ignoring() -> Callable[..., None]:
    """A handler for messages the server sends that Shard has no use for (logs, progress)."""

    def ignore(*_: object) -> None:
        return None

    return ignore


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
