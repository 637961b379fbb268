"""`expand`: entries whole, by stable index — a long one in pages of characters."""

from __future__ import annotations

from shard_core.engine.recall.documents import full_text
from shard_core.engine.recall.lineage import Lineage
from shard_core.engine.recall.scopes import compaction_spans, folded_by

EXPAND_CHARS = 40_000
MAX_EXPAND = 10


def expand_entries(
    lineage: Lineage, indices: tuple[int, ...], offset: int
) -> tuple[str, tuple[int, ...], str | None]:
    """(text, indices shown, next cursor). `offset` pages through a single long entry."""
    wanted = list(dict.fromkeys(indices))[:MAX_EXPAND]
    share = EXPAND_CHARS // max(1, len(wanted))
    start = offset if len(wanted) == 1 else 0
    spans = compaction_spans(lineage)
    parts: list[str] = []
    next_cursor: str | None = None
    for g in wanted:
        located = lineage.locate(g)
        entry = located[0].index.read(located[1]) if located is not None else None
        if entry is None:
            parts.append(f"#{g}: no such entry (this lineage has #0-#{lineage.size - 1})")
            continue
        body = full_text(entry)
        where = folded_by(spans, g)
        head = f"#{g} {entry.type} id={entry.id}" + (f", folded by {where}" if where else "")
        piece = body[start : start + share]
        if len(piece) < len(body):
            head += f" (characters {start:,}-{start + len(piece):,} of {len(body):,})"
            if len(wanted) == 1 and start + len(piece) < len(body):
                next_cursor = str(start + len(piece))
        parts.append(f"{head}\n{piece}")
    if next_cursor is not None:
        parts.append(f'more of it: recall{{expand: [{wanted[0]}], cursor: "{next_cursor}"}}')
    return "\n\n".join(parts), tuple(wanted), next_cursor
