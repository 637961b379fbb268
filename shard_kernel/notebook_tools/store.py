"""NotebookStore: where the notebook tools read and change a notebook.

The server's shared document when real-time collaboration holds the notebook (shared_doc.py:
people's unsaved typing is there, and every open view updates at once), else the file (read
whole, written back by splicing, atomically). A shared document that cannot be reached before
anything was changed falls back to the file.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from shard_kernel.notebook_tools.document import NotebookFile
from shard_kernel.notebook_tools.server_kernel import ServerKernelError
from shard_kernel.notebook_tools.shared_doc import SharedNotebooks

T = TypeVar("T")
log = logging.getLogger(__name__)
_UNREACHABLE = (ServerKernelError, OSError, TimeoutError)


class NotebookStore:
    def __init__(self, shared: SharedNotebooks | None = None) -> None:
        self.shared = shared

    async def read(self, path: Path) -> NotebookFile:
        if await self._shared(path):
            assert self.shared is not None
            try:
                return await self.shared.read(path)
            except _UNREACHABLE as exc:
                log.warning("shared document of %s unreachable, reading the file: %s", path, exc)
        return await asyncio.to_thread(NotebookFile.load, path)

    async def change(
        self, path: Path, transform: Callable[[NotebookFile], T], *, create: bool = False
    ) -> tuple[T, bool]:
        """Apply `transform` (which may raise NotebookError: then nothing changes) and keep it;
        returns its result and whether it went through the shared document."""
        if path.exists() and await self._shared(path):
            assert self.shared is not None
            started = False

            def tracked(doc: NotebookFile) -> T:
                nonlocal started
                started = True
                return transform(doc)

            try:
                return await self.shared.change(path, tracked), True
            except _UNREACHABLE as exc:
                if started:
                    raise
                log.warning("shared document of %s unreachable, writing the file: %s", path, exc)

        def on_file() -> T:
            doc = NotebookFile.load(path, create=create)
            result = transform(doc)
            doc.save()
            return result

        return await asyncio.to_thread(on_file), False

    async def _shared(self, path: Path) -> bool:
        return self.shared is not None and await self.shared.usable(path)
