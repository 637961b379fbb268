"""Recall: search and expand a session lineage's full history through a rebuildable FTS5 cache.

Public API:
- `RecallTool(resolver)` — the `recall` tool; `resolver(session_id) -> [paths oldest first]`
- `directory_resolver(sessions_dir)`, `lineage_paths(log)` — resolvers for SessionStore layouts
- `Lineage.open(paths)`, `recall(lineage, RecallRequest(...))` — the same answers without a tool
- `RecallIndex.open(log)` — one log's cache (`<log>.recall.sqlite`)
- `search_home(sessions_dir, query)` — ranked search across every session log in a folder,
  through one cache for the folder (`HomeIndex`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shard_core.lazy_exports import lazy_getattr

if TYPE_CHECKING:
    from shard_core.engine.recall.home import HomeHit, HomeIndex, search_home
    from shard_core.engine.recall.index import RecallIndex, cache_path
    from shard_core.engine.recall.lineage import (
        Lineage,
        LineageResolver,
        directory_resolver,
        lineage_paths,
    )
    from shard_core.engine.recall.patterns import pattern_problem
    from shard_core.engine.recall.search import RecallAnswer, RecallRequest, recall
    from shard_core.engine.recall.tool import RecallTool, answer, parse_request

_WHERE = {
    "HomeHit": "home",
    "HomeIndex": "home",
    "search_home": "home",
    "RecallIndex": "index",
    "cache_path": "index",
    "Lineage": "lineage",
    "LineageResolver": "lineage",
    "directory_resolver": "lineage",
    "lineage_paths": "lineage",
    "pattern_problem": "patterns",
    "RecallAnswer": "search",
    "RecallRequest": "search",
    "recall": "search",
    "RecallTool": "tool",
    "answer": "tool",
    "parse_request": "tool",
}
"""Each public name → its module, imported on first use (PEP 562): a reader of one log's
lineage (`shard session compact`) does not load the tool, its asyncio and the home index."""


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "HomeHit",
    "HomeIndex",
    "Lineage",
    "LineageResolver",
    "RecallAnswer",
    "RecallIndex",
    "RecallRequest",
    "RecallTool",
    "answer",
    "cache_path",
    "directory_resolver",
    "lineage_paths",
    "parse_request",
    "pattern_problem",
    "recall",
    "search_home",
]
