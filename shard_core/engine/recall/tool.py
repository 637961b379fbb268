"""RecallTool: the model's way back into everything compaction folded away.

Built with a LineageResolver (session id → the lineage's JSONL paths, oldest first; see
lineage.py), it reads the full logs through their rebuildable SQLite caches. Read-only.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shard_core.contracts.tool import ToolContext
from shard_core.engine.recall.lineage import Lineage, LineageResolver
from shard_core.engine.recall.scan import BUDGET_S
from shard_core.engine.recall.search import MAX_PAGE, Mode, RecallAnswer, RecallRequest, recall
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
    "names."
)


FIELDS = ("scope", "query", "mode", "recent", "expand", "cursor")


def parse_request(data: JsonObject) -> RecallRequest | str:
    """A valid request, or what is wrong with the input (for the model to fix)."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r} (allowed: {', '.join(FIELDS)})"
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
        },
        "additionalProperties": False,
    }
    read_only: bool = True

    def __init__(self, resolver: LineageResolver, *, budget_s: float = BUDGET_S) -> None:
        self.resolver = resolver
        self.budget_s = budget_s

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        request = parse_request(input)
        if isinstance(request, str):
            return ToolResult.error(f"recall: {request}")
        try:
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
