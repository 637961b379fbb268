"""HostFiles over ACP: `fs/read_text_file` and `fs/write_text_file` to the host, when it
offers them in `initialize` (so reads see an editor's unsaved buffers and edits land in them).
"""

from __future__ import annotations

from pathlib import Path

from acp.interfaces import Client
from acp.schema import ClientCapabilities


class AcpFiles:
    def __init__(self, client: Client, session_id: str, capabilities: ClientCapabilities) -> None:
        fs = capabilities.fs
        self.client = client
        self.session_id = session_id
        self.can_read = bool(fs and fs.read_text_file)
        self.can_write = bool(fs and fs.write_text_file)

    async def read_text(self, path: Path) -> str | None:
        if not self.can_read:
            return None
        reply = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        return reply.content

    async def write_text(self, path: Path, text: str) -> bool:
        if not self.can_write:
            return False
        await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)
        return True
