"""`GET /shard/api/agents/<id>/mention-file?path=…`: the text of a file an `@file:` mention names,
read by the server with the read tool's containment (`resolve_in_workspace`: every symbolic
link followed), so a link inside the agent's folder that points outside it is refused as the
read tool refuses it; the browser cannot see links.

Answers `{"path", "text", "more"}` (at most MAX_CHARS characters of text; `more`: the file
goes on); a path outside the
folder is 403, a missing file or a folder 404, a file that is not UTF-8 text 415, each with a
message saying so.
"""

from __future__ import annotations

from pathlib import Path

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_core.contracts import ToolContext
from shard_core.tools.workspace import resolve_in_workspace
from shard_core.types import ToolResult
from shard_kernel.gateway.handlers import AGENT, ShardAPIHandler

MAX_CHARS = 100_000
MAX_BYTES = 4 * MAX_CHARS  # UTF-8 takes at most 4 bytes a character


class MentionFileHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, agent_id: str) -> None:
        path = self.get_argument("path", "")
        info = await self.info_or_404(agent_id)
        cwd = Path(info.cwd)
        ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id=agent_id, session_id="", call_id="")
        resolved = resolve_in_workspace(path, ctx)
        if isinstance(resolved, ToolResult):
            if not path.strip():
                raise web.HTTPError(400, "send path, the file relative to the agent's folder")
            target = resolved.details.get("path")
            why = f"@file:{path} is outside the agent's folder {info.cwd}"
            raise web.HTTPError(403, "%s", f"{why} (it resolves to {target})" if target else why)
        if not resolved.is_file():
            raise web.HTTPError(404, "there is no text file %s in the agent's folder", path)
        with resolved.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        cut = len(data) > MAX_BYTES  # a character split at the cut is dropped, not refused
        try:
            text = data[:MAX_BYTES].decode("utf-8", errors="ignore" if cut else "strict")
        except UnicodeDecodeError:
            raise web.HTTPError(415, "%s is not a text file (not UTF-8)", path) from None
        more = len(text) > MAX_CHARS or cut
        self.reply({"path": path, "text": text[:MAX_CHARS], "more": more})


MENTION_ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (rf"/shard/api/agents/{AGENT}/mention-file", MentionFileHandler),
)
