"""SharedNotebooks: notebook changes through the real-time collaboration server's shared document.

With `jupyter-collaboration` on the Jupyter server that started this process, an open notebook's
truth is the server's shared document (a Y document), not the file: people's unsaved typing lives
there. So the notebook tools read and change it there: join the document's room over the server's
WebSocket as one more collaborator (pycrdt), apply the change — `YNotebook.set` keeps unchanged
cells and updates the rest granularly — so every open view shows it at once, then ask the server to
save. Without the server, the package or the room API, the caller works on the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

from shard_kernel.notebook_tools.document import NotebookFile, validate_text
from shard_kernel.notebook_tools.server_kernel import JupyterServer, ServerKernelError

T = TypeVar("T")
SYNC_TIMEOUT = 30.0
SAVE_TIMEOUT = 15.0
_RAW = 2  # jupyter_server_ydoc's message type for its own JSON messages (save requests)
log = logging.getLogger(__name__)


class SharedNotebooks:
    def __init__(self, server: JupyterServer | None) -> None:
        self.server = server
        self._usable: bool | None = None

    @classmethod
    def for_parent_server(cls) -> SharedNotebooks:
        return cls(JupyterServer.parent())

    async def usable(self, path: Path) -> bool:
        """Whether `path` is a notebook the server can hold as a shared document."""
        server = self.server
        if server is None or not path.is_relative_to(server.root_dir):
            return False
        if self._usable is None:
            self._usable = _has_pycrdt() and await self._session(path) is not None
        return self._usable

    async def read(self, path: Path) -> NotebookFile:
        async with self._room(path) as notebook:
            return NotebookFile.from_json(path, notebook.get())

    async def change(self, path: Path, transform: Callable[[NotebookFile], T]) -> T:
        """Apply `transform` to the live document; nothing is sent when it raises."""
        async with self._room(path) as notebook:
            doc = NotebookFile.from_json(path, notebook.get())
            result = transform(doc)
            validate_text(doc.render(), path.name)
            notebook.set(_with_text_sources(doc.as_json()))
        return result

    # ------------------------------------------------------------ the room

    async def _session(self, path: Path) -> dict[str, Any] | None:
        assert self.server is not None
        rel = path.relative_to(self.server.root_dir).as_posix()
        try:
            return await self.server.request(
                "PUT", f"/api/collaboration/session/{rel}", {"format": "json", "type": "notebook"}
            )
        except (ServerKernelError, ValueError):
            return None

    @contextlib.asynccontextmanager
    async def _room(self, path: Path) -> AsyncIterator[Any]:
        # Only with jupyter-collaboration installed (it brings both): `usable` checked.
        from jupyter_ydoc import YNotebook  # pyright: ignore[reportMissingImports]
        from pycrdt import Doc, Provider  # pyright: ignore[reportMissingImports]
        from tornado.websocket import websocket_connect

        session = await self._session(path)
        if session is None:
            raise ServerKernelError(f"the collaboration server has no document for {path.name}")
        assert self.server is not None
        room = f"json:notebook:{session['fileId']}"
        ws_url = self.server.url.replace("http", "ws", 1).rstrip("/")
        url = f"{ws_url}/api/collaboration/room/{room}?sessionId={session['sessionId']}"
        if self.server.token:
            url += f"&token={self.server.token}"
        conn = await websocket_connect(url, max_message_size=512 * 1024 * 1024)
        channel = _Channel(conn, room)
        ydoc = Doc()
        notebook = YNotebook(ydoc)
        try:
            async with Provider(ydoc, channel, log=log) as provider:
                await asyncio.wait_for(provider.synced.wait(), SYNC_TIMEOUT)
                yield notebook
            await _save(channel)
        finally:
            conn.close()


class _Channel:
    """A tornado WebSocket client as the pycrdt Channel the provider reads and writes."""

    def __init__(self, conn: Any, path: str) -> None:
        self._conn = conn
        self._path = path
        self.raw: asyncio.Queue[bytes] = asyncio.Queue()

    @property
    def path(self) -> str:
        return self._path

    def __aiter__(self) -> _Channel:
        return self

    async def __anext__(self) -> bytes:
        message = await self.recv()
        if not message:
            raise StopAsyncIteration
        return message

    async def send(self, message: bytes) -> None:
        await self._conn.write_message(message, binary=True)

    async def recv(self) -> bytes:
        while True:
            message = await self._conn.read_message()
            if message is None:
                return b""
            data = message.encode() if isinstance(message, str) else bytes(message)
            if data and data[0] == _RAW:
                self.raw.put_nowait(data)  # the server's own messages: not for the provider
                continue
            return data


async def _save(channel: _Channel) -> None:
    """Ask the server to write the document to disk now, and wait for its answer (bounded)."""
    from pycrdt import Decoder, Encoder  # pyright: ignore[reportMissingImports]

    encoder = Encoder()
    encoder.write_var_uint(_RAW)
    encoder.write_var_string("save")
    encoder.write_var_uint(1)
    await channel.send(encoder.to_bytes())
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(SAVE_TIMEOUT):
            while True:
                data = await _next_raw(channel)
                if data is None:
                    return
                decoder = Decoder(data)
                decoder.read_var_uint()
                reply = json.loads(decoder.read_var_string())
                if reply.get("type") == "save" and reply.get("responseTo") == 1:
                    return


async def _next_raw(channel: _Channel) -> bytes | None:
    while channel.raw.empty():
        # anything else that arrives now is sync traffic this short visit is done with
        if not await channel.recv():
            return None
    return channel.raw.get_nowait()


def _with_text_sources(data: dict[str, Any]) -> dict[str, Any]:
    """A shared document holds each source as one text, never as a list of lines."""
    for cell in data.get("cells", []):
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return data


def _has_pycrdt() -> bool:
    try:
        import jupyter_ydoc  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]
        import pycrdt  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]
    except ImportError:
        return False
    return True
