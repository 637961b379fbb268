"""LanguageServer: one language server process over stdio, through pygls' client and the
`lsprotocol` types: initialize, send a changed file, await its published diagnostics."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from shard_core.capabilities.code_index.findings import Finding

_QUIET = ("window/logMessage", "window/showMessage", "$/progress", "telemetry/event")


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
        self._tmp: str | None = None

    async def start(self) -> None:
        client = LanguageClient("shard", "1")

        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self._on_publish(params)  # (pygls marks the handler: a plain function, not a method)

        client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
        for method in _QUIET:
            client.feature(method)(_ignoring())
        start = cast(Callable[..., Awaitable[None]], client.start_io)  # pyright: ignore[reportUnknownMemberType]
        # The server's temp files (pyright leaves a folder) go where stop() removes them.
        self._tmp = tempfile.mkdtemp(prefix="shard-lsp-")
        env = {**os.environ, "TMPDIR": self._tmp, "TMP": self._tmp, "TEMP": self._tmp}
        self._client = client  # from here on stop() ends the process, even if initialize fails
        # A session of its own: Jupyter interrupts (and shuts down) a kernel by a SIGINT to its
        # process group, which would end the server with it (pyright's `node` dies of it, and
        # pygls fails the request in flight with "exited with return code: -2").
        await start(*self.command, cwd=str(self.root), env=env, start_new_session=True)
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

    @property
    def exited(self) -> int | None:
        """The server process's exit status once it has ended on its own, else None."""
        server = getattr(self._client, "_server", None)
        return None if server is None else server.returncode

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
        try:
            if client is not None:
                await self._end(client)
        finally:
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None

    async def _end(self, client: Any) -> None:
        try:
            await asyncio.wait_for(client.shutdown_async(None), 5)
            client.exit(None)
            await asyncio.wait_for(client.stop(), 5)
        except (TimeoutError, RuntimeError, ConnectionError):
            server = getattr(client, "_server", None)
            if server is not None and server.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGKILL)  # its group: pyright's node too
                await server.wait()
            with contextlib.suppress(Exception):  # pygls' reader tasks end with the process
                await asyncio.wait_for(client.stop(), 5)


def _ignoring() -> Callable[..., None]:
    """A handler for messages the server sends that Shard has no use for (logs, progress)."""

    def ignore(*_: object) -> None:
        return None

    return ignore
