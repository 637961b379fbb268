"""`/shard/api/grants`: the workspace grants ("Always allow in this workspace") the sidebar lists
and revokes, read from and written to the same files every agent's gate reads
(`SHARD_HOME/workspaces/<key>/permission-grants.json`, see GrantStore). A running agent notices
the changed file at its next check, so a revoke here holds for agents already at work.

`GET` lists every workspace that has grants (`?cwd=PATH`: only that folder's); `DELETE
?workspace=PATH&rule=RULE` revokes one (404 when there is no such grant, 409 when the file cannot
be read: a person fixes or removes it first). Token and `kernels` authorization as every route.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_core.engine.permissions.grants import GRANTS_FILE, GrantStore, workspace_key
from shard_core.engine.state import shard_home
from shard_core.types.errors import ConfigError
from shard_kernel.gateway.handlers import ShardAPIHandler


def workspace_grants(home: Path, cwd: str | None = None) -> list[dict[str, Any]]:
    """Each workspace folder with grants (or a file that cannot be read), by folder name."""
    if cwd is not None:
        folders = [cwd]
    else:
        folders = [
            folder
            for path in sorted((home / "workspaces").glob(f"*/{GRANTS_FILE}"))
            if (folder := _named_folder(path)) is not None
        ]
    found = [_listing(GrantStore.for_workspace(Path(folder), home)) for folder in folders]
    return sorted(
        (entry for entry in found if entry["grants"] or entry["problem"]),
        key=lambda entry: entry["workspace"],
    )


def _named_folder(path: Path) -> str | None:
    """The folder a grants file names, when its key is that folder's (a file copied or edited
    under another key is not that workspace's, and no agent reads it)."""
    try:
        named = json.loads(path.read_text(encoding="utf-8")).get("workspace")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(named, str) or workspace_key(Path(named)) != path.parent.name:
        return None
    return named


def _listing(store: GrantStore) -> dict[str, Any]:
    grants = [{"rule": g.text, "granted_by": g.granted_by, "ts": g.ts} for g in store.grants()]
    return {"workspace": store.workspace, "grants": grants, "problem": store.problem}


class GrantsHandler(ShardAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        cwd = self.get_query_argument("cwd", None)
        self.reply({"workspaces": workspace_grants(shard_home(), cwd or None)})

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        folder = self.get_query_argument("workspace", "").strip()
        rule = self.get_query_argument("rule", "").strip()
        if not folder or not rule:
            raise web.HTTPError(400, "send workspace (the folder) and rule (the grant's rule)")
        store = GrantStore.for_workspace(Path(folder), shard_home())
        try:
            revoked = store.revoke(rule)
        except ConfigError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        if not revoked:
            raise web.HTTPError(404, "no workspace grant %s for %s", rule[:200], folder[:200])
        self.reply(_listing(store))


GRANT_ROUTES: tuple[tuple[str, type[ShardAPIHandler]], ...] = (
    (r"/shard/api/grants", GrantsHandler),
)
"""The grants routes (path relative to base_url, handler)."""
