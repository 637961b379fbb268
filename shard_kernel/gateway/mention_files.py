"""`GET /shard/api/agents/<id>/mention-file?path=…`: the text of a file an `@file:` mention names,
read by the server with the read tool's containment (`resolve_in_workspace`: every symbolic
link followed; `shard_kernel/mention_text.py`, which a Shard notebook cell's `@file:` uses
too), so a link inside the agent's folder that points outside it is refused as the read tool
refuses it; the browser cannot see links.

Answers `{"path", "text", "more"}` (at most MAX_CHARS characters of text; `more`: the file goes
on); an empty path is 400, a path outside the folder 403, a missing file or a folder 404, a file
that is not UTF-8 text 415, each with a message saying so.
"""

from __future__ import annotations

from pathlib import Path

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_kernel.gateway.handlers import AGENT, ShardAPIHandler
from shard_kernel.mention_text import MentionError, read_mention

STATUS = {"empty": 400, "outside": 403, "missing": 404, "binary": 415}


class MentionFileHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, agent_id: str) -> None:
        path = self.get_argument("path", "")
        info = await self.info_or_404(agent_id)
        try:
            found = read_mention(path, Path(info.cwd), agent_id)
        except MentionError as refused:
            raise web.HTTPError(STATUS[refused.kind], "%s", refused.message) from None
        self.reply({"path": path, "text": found.text, "more": found.more})


MENTION_ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (rf"/shard/api/agents/{AGENT}/mention-file", MentionFileHandler),
)
