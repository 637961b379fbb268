"""Search across sessions: the HomeIndex's ranked entries grouped by session, ranked by
relevance and recency together, each session named by its id and title.

A session's relevance is the sum of its matching entries' bm25 scores (the HomeIndex ranks
the best few hundred entries); recency weighs it by `1 / (1 + age / RECENCY_DAYS)`, so a
session as relevant as another but a week older ranks at half its score. `workspace` keeps only
sessions started in that folder; `roots` only those started inside one of these folders (the
recall tool's default: the agent's workspace roots).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.engine.plurals import counted
from shard_core.engine.recall.catalog import SessionInfo, session_info
from shard_core.engine.recall.home import HomeHit, HomeIndex
from shard_core.engine.recall.places import inside_roots
from shard_core.engine.session_store import find_session
from shard_core.types.errors import SessionNotFoundError

RECENCY_DAYS = 7.0
ENTRY_POOL = 300
"""How many of the best entries are grouped into sessions."""


@dataclass
class SessionMatch:
    info: SessionInfo
    score: float
    hits: list[HomeHit] = field(default_factory=list[HomeHit])


def search_sessions(
    home: Path,
    query: str,
    *,
    workspace: str | None = None,
    roots: Sequence[Path] | None = None,
    limit: int = 10,
    now: float | None = None,
) -> list[SessionMatch]:
    """Sessions under `home` matching `query`, best first (relevance weighed by recency)."""
    with HomeIndex.open(home) as index:
        hits = index.search(query, ENTRY_POOL)
    grouped: dict[str, list[HomeHit]] = {}
    for hit in hits:
        grouped.setdefault(hit.path, []).append(hit)
    now = time.time() if now is None else now
    matches: list[SessionMatch] = []
    for path, found in grouped.items():
        try:
            info = session_info(home / path)
        except OSError:
            continue  # removed since it was indexed
        if workspace is not None and info.workspace != workspace:
            continue
        if roots is not None and not inside_roots(info.workspace, roots):
            continue
        if info.title is None:
            info.title = _inherited_title(home, info)
        relevance = sum(-h.rank for h in found)
        age_days = max(0.0, now - info.last_activity) / 86_400
        matches.append(SessionMatch(info, relevance / (1 + age_days / RECENCY_DAYS), found))
    matches.sort(key=lambda m: (-m.score, -m.info.last_activity))
    return matches[: max(1, limit)]


def _inherited_title(home: Path, info: SessionInfo) -> str | None:
    seen = {info.session_id}
    parent = info.parent
    while parent and parent not in seen:
        seen.add(parent)
        try:
            ancestor = session_info(find_session(home, parent))
        except (SessionNotFoundError, OSError):
            return None
        if ancestor.title:
            return ancestor.title
        parent = ancestor.parent
    return None


def describe(match: SessionMatch) -> str:
    """`s-… “title” (workspace, last active 2026-11-30 14:02)` — how results name a session."""
    info = match.info
    title = f" “{info.title}”" if info.title else " (untitled)"
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.last_activity))
    where = f"{info.workspace}, " if info.workspace else ""
    return f"{info.session_id}{title} ({where}last active {when})"


def format_matches(
    matches: list[SessionMatch], query: str, scope: str, per_session: int = 3
) -> str:
    if not matches:
        return f'no session {scope} has "{query}"'
    lines = [
        f"{counted(len(matches), 'session')} {scope} {'has' if len(matches) == 1 else 'have'} "
        f'"{query}" (best and most recent first):'
    ]
    for match in matches:
        lines.append(describe(match))
        for hit in match.hits[:per_session]:
            snippet = " ".join(hit.snippet.split())
            if len(snippet) > 200:
                snippet = snippet[:199] + "…"
            lines.append(f"  #{hit.pos} {hit.label}: {snippet}")
    example = matches[0].info.session_id
    lines.append(f'(recall with session: "{example}" searches or expands one of them)')
    return "\n".join(lines)
