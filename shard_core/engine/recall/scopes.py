"""Recall scopes in stable indices: `all`, `compaction:N` (what compaction N folded) and
`latest` (what the most recent compaction folded; the whole lineage before any compaction)."""

from __future__ import annotations

from dataclasses import dataclass

from shard_core.engine.recall.lineage import Lineage


@dataclass(frozen=True)
class Span:
    index: int
    lo: int
    hi: int


def compaction_spans(lineage: Lineage) -> list[Span]:
    """Each compaction's folded range, in log order."""
    spans: list[Span] = []
    for segment in lineage.segments:
        for pos, number, first_id, last_id, _ in segment.index.compactions():
            if not segment.lo <= pos <= segment.hi:
                continue
            lo, hi = lineage.index_of(first_id), lineage.index_of(last_id)
            if lo is not None and hi is not None:
                spans.append(Span(number, lo, hi))
    return spans


def scope_range(lineage: Lineage, scope: str) -> tuple[int, int] | str:
    """(lo, hi) of a scope, inclusive, or what is wrong with it."""
    whole = (0, lineage.size - 1)
    if scope == "all":
        return whole
    spans = compaction_spans(lineage)
    if scope == "latest":
        return (spans[-1].lo, spans[-1].hi) if spans else whole
    number = scope.removeprefix("compaction:")
    matching = [s for s in spans if number.isdigit() and s.index == int(number)]
    if scope.startswith("compaction:") and matching:
        return matching[-1].lo, matching[-1].hi
    known = ", ".join(f'"compaction:{s.index}"' for s in spans) or "none yet"
    return f'unknown scope {scope!r}: use "all", "latest" or one of {known}'


def folded_by(spans: list[Span], index: int) -> str | None:
    inside = [f"compaction:{s.index}" for s in spans if s.lo <= index <= s.hi]
    return inside[-1] if inside else None
