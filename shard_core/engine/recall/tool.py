"""RecallTool: the model's way back into everything compaction folded away.

Built with a LineageResolver (session id → the lineage's JSONL paths, oldest first; see
lineage.py), it reads the full logs through their rebuildable SQLite caches. Read-only, and
within the workspace by default: other sessions are those whose recorded workspace lies inside
the agent's roots; a call that reaches further (`home: true`, another project's `session:`)
says so through `reach`, and the permission gate asks about it like a read outside the
workspace (places.py).
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shard_core.contracts.tool import ToolContext
from shard_core.engine.recall.across import format_matches, search_sessions
from shard_core.engine.recall.lineage import Lineage, LineageResolver
from shard_core.engine.recall.places import (
    EVERY_WORKSPACE,
    outside_sessions,
    session_paths,
    session_problem,
)
from shard_core.engine.recall.scan import BUDGET_S
from shard_core.engine.recall.search import MAX_PAGE, Mode, RecallAnswer, RecallRequest, recall
from shard_core.engine.state import shard_home
from shard_core.types import JsonObject, ToolResult
from shard_core.types.errors import ShardError

_SCOPE = re.compile(r"^(?:all|latest|compaction:\d+)$")
MODES: tuple[Mode, ...] = ("search", "regex", "touched")

DESCRIPTION = (
    "Search or read this session's full history, including everything before a compaction "
    "summary. Entries are numbered #N (stable: the numbers in summaries' `(recall: "
    "expand=[N])` breadcrumbs). No query: the most recent entries of the scope. `query`: "
    'ranked word search (mode "search"), a regular expression (mode "regex"), or a file '
    'path (mode "touched": entries that read, wrote, edited or ran commands on it). '
    '`expand: [N, …]` returns those entries whole. Scope "all" (default), "latest" (what '
    'the last compaction folded) or "compaction:N". Pages: pass back the `cursor` a result '
    'names. Other sessions: `sessions: "all"` with a `query` ranks the sessions of this '
    "workspace (`home: true`: every workspace, asked first) by relevance and recency and names "
    "each by id and title; `session: <id>` then searches or expands that one like this one "
    "(another workspace's session is asked first)."
)


FIELDS = ("scope", "query", "mode", "recent", "expand", "cursor")
ACROSS = ("sessions", "home", "session")
"""Fields that pick which sessions recall reads (see `RecallTool.execute`)."""


def parse_request(data: JsonObject) -> RecallRequest | str:
    """A valid request, or what is wrong with the input (for the model to fix)."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r} (allowed: {', '.join((*FIELDS, *ACROSS))})"
    scope = data.get("scope", "all")
    if not isinstance(scope, str) or not _SCOPE.match(scope):
        return f'scope must be "all", "latest" or "compaction:N", not {scope!r}'
    query, mode, cursor = data.get("query"), data.get("mode", "search"), data.get("cursor")
    if query is not None and not isinstance(query, str):
        return "query must be a string"
    if mode not in MODES:
        return f"mode must be one of {', '.join(MODES)}, not {mode!r}"
    if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit()):
        return "cursor must be the string a previous recall result gave"
    recent: Any = data.get("recent")
    if recent is not None and (not isinstance(recent, int) or not 1 <= recent <= MAX_PAGE):
        return f"recent must be an integer from 1 to {MAX_PAGE}"
    raw: Any = data.get("expand", [])
    if not isinstance(raw, list) or not all(isinstance(i, int) and i >= 0 for i in raw):  # pyright: ignore[reportUnknownVariableType]
        return "expand must be a list of entry numbers (#N)"
    expand = tuple(int(i) for i in raw)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return RecallRequest(scope, query, recent, expand, mode, cursor)


def answer(
    paths: Sequence[Path], request: RecallRequest, budget_s: float = BUDGET_S
) -> RecallAnswer:
    """Open the lineage, answer, close: what the tool runs in a worker thread."""
    with Lineage.open(paths) as lineage:
        return recall(lineage, request, budget_s=budget_s)


class RecallTool:
    name: str = "recall"
    description: str = DESCRIPTION
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "scope": {"type": "string", "description": "all | latest | compaction:N"},
            "query": {"type": "string", "description": "words, a regex, or a path (by mode)"},
            "mode": {"type": "string", "enum": list(MODES)},
            "recent": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            "expand": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "cursor": {"type": "string", "description": "from a previous result"},
            "sessions": {
                "type": "string",
                "enum": ["this", "all"],
                "description": "this session (default) or all sessions of this workspace",
            },
            "home": {"type": "boolean", "description": "with sessions all: every workspace"},
            "session": {"type": "string", "description": "another session's id, to search"},
        },
        "additionalProperties": False,
    }
    read_only: bool = True
    kind: str = "search"  # ToolKind: what an ACP host shows

    def __init__(
        self, resolver: LineageResolver, *, budget_s: float = BUDGET_S, home: Path | None = None
    ) -> None:
        self.resolver = resolver
        self.budget_s = budget_s
        self.home = home
        """SHARD_HOME for other sessions (None: the environment's, when asked)"""

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        across = {k: input[k] for k in ACROSS if k in input}
        request = parse_request({k: v for k, v in input.items() if k not in ACROSS})
        if isinstance(request, str):
            return ToolResult.error(f"recall: {request}")
        problem = _across_problem(across, request)
        if problem:
            return ToolResult.error(f"recall: {problem}")
        home = self.home or shard_home()
        if across.get("sessions") == "all":
            return await self._across(home, str(request.query), bool(across.get("home")), ctx)
        try:
            other = across.get("session")
            if isinstance(other, str) and other != ctx.session_id:
                paths = session_paths(home, other)
            else:
                paths = self.resolver(ctx.session_id)
            result = await asyncio.to_thread(answer, paths, request, self.budget_s)
        except (ShardError, OSError, sqlite3.Error) as exc:
            return ToolResult.error(f"recall failed: {exc}")
        if result.error:
            return ToolResult.error(result.text)
        return ToolResult.ok(
            result.text,
            indices=list(result.indices),
            next_cursor=result.next_cursor,
            total=result.total,
        )

    def reach(self, input: JsonObject, ctx: ToolContext) -> list[str]:
        """The sessions outside the agent's roots this call would read (for the gate)."""
        if input.get("sessions") == "all":
            return [EVERY_WORKSPACE] if input.get("home") is True else []
        other = input.get("session")
        if other is None or other == ctx.session_id or session_problem(other):
            return []  # this session, or input the tool refuses before reading anything
        try:
            paths = session_paths(self.home or shard_home(), str(other))
        except (ShardError, OSError):
            return []  # no such session: the call fails without reading one
        return outside_sessions(paths, ctx.roots)

    async def _across(
        self, home: Path, query: str, everywhere: bool, ctx: ToolContext
    ) -> ToolResult:
        roots = None if everywhere else list(ctx.roots)
        try:
            matches = await asyncio.to_thread(search_sessions, home, query, roots=roots)
        except (ShardError, OSError, sqlite3.Error) as exc:
            return ToolResult.error(f"recall failed: {exc}")
        scope = "under SHARD_HOME" if everywhere else "of this workspace"
        text = format_matches(matches, query, scope)
        sessions = [
            {"session": m.info.session_id, "title": m.info.title, "workspace": m.info.workspace}
            for m in matches
        ]
        return ToolResult.ok(text, sessions=sessions)


def _across_problem(across: JsonObject, request: RecallRequest) -> str | None:
    sessions = across.get("sessions", "this")
    if sessions not in ("this", "all"):
        return f'sessions must be "this" or "all", not {sessions!r}'
    if "home" in across and not isinstance(across["home"], bool):
        return "home must be true or false"
    other = across.get("session")
    if other is not None and (problem := session_problem(other)):
        return problem
    if sessions == "all":
        if other is not None:
            return 'give either sessions: "all" or session: <id>, not both'
        if not request.query or request.mode != "search" or request.expand:
            return 'sessions: "all" needs a query (word search); expand within one session'
    elif across.get("home"):
        return 'home widens sessions: "all"; give sessions: "all" too'
    return None
