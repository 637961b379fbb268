"""Recall over a lineage: the recent entries of a scope, ranked word search (bm25), regex on a
time budget, files touched, and `expand` — each a page of one-line results with a cursor."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from shard_core.engine.plurals import counted
from shard_core.engine.recall.expand import expand_entries
from shard_core.engine.recall.lineage import Lineage
from shard_core.engine.recall.patterns import TOO_EXPENSIVE, pattern_problem, required_literal
from shard_core.engine.recall.scan import BUDGET_S, scan
from shard_core.engine.recall.scopes import scope_range

Mode = Literal["search", "regex", "touched"]
DEFAULT_RECENT = 25
PAGE = 10
MAX_PAGE = 100
LINE_CHARS = 240
CANDIDATES = 50
_TERMS = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class RecallRequest:
    scope: str = "all"
    query: str | None = None
    recent: int | None = None
    expand: tuple[int, ...] = ()
    mode: Mode = "search"
    cursor: str | None = None

    @property
    def offset(self) -> int:
        return int(self.cursor) if self.cursor is not None and self.cursor.isdigit() else 0

    def page(self, default: int) -> int:
        return max(1, min(self.recent or default, MAX_PAGE))


@dataclass(frozen=True)
class RecallAnswer:
    text: str
    indices: tuple[int, ...] = ()
    next_cursor: str | None = None
    total: int | None = None
    error: bool = False


def _flat(text: str) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1] + "…"


def _lines(lineage: Lineage, indices: list[int], snippets: dict[int, str]) -> list[str]:
    labels: dict[int, tuple[str, str]] = {}
    for segment in lineage.segments:
        local = [
            segment.lo + g - segment.base for g in indices if 0 <= g - segment.base < segment.size
        ]
        if local:
            labels.update({segment.to_global(p): v for p, v in segment.index.labels(local).items()})
    lines: list[str] = []
    for g in indices:
        label, preview = labels.get(g, ("?", ""))
        shown = _flat(snippets.get(g, preview))
        lines.append(f"#{g} {label}: {shown}" if shown else f"#{g} {label}")
    return lines


def _page_answer(
    lineage: Lineage,
    head: str,
    shown: list[int],
    more: int | None,
    snippets: dict[int, str],
    total: int | None = None,
) -> RecallAnswer:
    tips: list[str] = []
    if more is not None:
        tips.append(f'more: the same call with cursor "{more}"')
    if shown:
        tips.append(f"whole entries: recall{{expand: [{', '.join(map(str, shown[:5]))}]}}")
    text = "\n".join([head, *_lines(lineage, shown, snippets), *tips])
    return RecallAnswer(text, tuple(shown), None if more is None else str(more), total)


def recent(lineage: Lineage, request: RecallRequest, lo: int, hi: int) -> RecallAnswer:
    page, offset = request.page(DEFAULT_RECENT), request.offset
    end = hi - offset
    start = max(lo, end - page + 1)
    shown = list(range(start, end + 1))
    head = f"recall: entries #{start}-#{end} of scope {request.scope} (#{lo}-#{hi}), oldest first"
    if not shown:
        head = f"recall: no entries in scope {request.scope} before that cursor"
    more = offset + len(shown) if shown and start > lo else None
    return _page_answer(lineage, head, shown, more, {}, hi - lo + 1)


def fts_terms(query: str) -> list[str]:
    """The query's words, quoted so none is FTS5 syntax (at most 16)."""
    return [f'"{t}"' for t in dict.fromkeys(t.lower() for t in _TERMS.findall(query))][:16]


def ranked(lineage: Lineage, request: RecallRequest, lo: int, hi: int) -> RecallAnswer:
    """Best first: entries with more of the words, then by bm25, then newest. Candidates are
    the best entries having every word, and only when they are too few, the best having any.
    Words are stemmed (porter): "rotation" finds "rotates"."""
    terms = fts_terms(request.query or "")
    if not terms:
        return RecallAnswer("recall: the query has no searchable words; try mode regex", error=True)
    page, offset = request.page(PAGE), request.offset
    want = offset + page + 1
    every, some = " ".join(terms), " OR ".join(terms)
    scored: dict[int, tuple[int, float]] = {}  # index → (-words matched, bm25 rank)
    total = 0
    for segment, llo, lhi in lineage.parts(lo, hi):
        total += segment.index.count_matches(some, llo, lhi)
        hits = dict(segment.index.search(every, llo, lhi, want))
        covered = dict.fromkeys(hits, len(terms))
        if len(hits) < want and len(terms) > 1:  # too few have every word: rank those with some
            more = dict(segment.index.search(some, llo, lhi, max(want, CANDIDATES)))
            covered.update({p: 0 for p in more if p not in hits})
            for term in terms:
                for p in segment.index.having(term, [p for p in more if p not in hits]):
                    covered[p] += 1
            hits = more | hits
        for p, rank in hits.items():
            scored[segment.to_global(p)] = (-covered[p], rank)
    order = sorted(scored, key=lambda g: (*scored[g], -g))
    shown = order[offset : offset + page]
    snippets = _snippets(lineage, [t.strip('"') for t in terms], shown)
    more = offset + page if len(order) > offset + page else None
    head = (
        f'recall: {counted(total, "entry matches", "entries match")} "{request.query}" in scope '
        f"{request.scope} (#{lo}-#{hi})"
    )
    if shown:
        head += f"; showing {offset + 1}-{offset + len(shown)}, best first"
    return _page_answer(lineage, head, shown, more, snippets, total)


def highlight(text: str, words: list[str]) -> str:
    """The passage around the first query word, every word in [brackets]. Words match by
    prefix, like the stemmed index does (`rotation` finds `rotates`)."""
    stems = [re.escape(w[:5] if len(w) > 5 else w) for w in words]
    pattern = re.compile(rf"\b(?:{'|'.join(stems)})\w*", re.IGNORECASE)
    found = pattern.search(text)
    if found is None:
        return text[:LINE_CHARS]
    start = max(0, found.start() - 60)
    window = text[start : found.start() + 180]
    marked = pattern.sub(lambda m: f"[{m.group(0)}]", window)
    return ("…" if start else "") + marked + ("…" if start + len(window) < len(text) else "")


def _snippets(lineage: Lineage, words: list[str], shown: list[int]) -> dict[int, str]:
    found: dict[int, str] = {}
    for segment in lineage.segments:
        local = [
            segment.lo + g - segment.base for g in shown if 0 <= g - segment.base < segment.size
        ]
        if local:
            for pos, body in segment.index.bodies(local).items():
                found[segment.to_global(pos)] = highlight(body, words)
    return found


def _texts(lineage: Lineage, lo: int, hi: int, literal: str | None) -> Iterator[tuple[int, str]]:
    for segment, llo, lhi in reversed(lineage.parts(lo, hi)):
        for pos, text in segment.index.texts(llo, lhi, literal):
            yield segment.to_global(pos), text


def regex(
    lineage: Lineage, request: RecallRequest, lo: int, hi: int, budget_s: float
) -> RecallAnswer:
    pattern = request.query or ""
    problem = pattern_problem(pattern)
    if problem is not None:
        return RecallAnswer(f"recall: {problem}", error=True)
    page, offset = request.page(PAGE), request.offset
    texts: dict[int, str] = {}

    def remember() -> Iterator[tuple[int, str]]:
        for g, text in _texts(lineage, lo, hi, required_literal(pattern)):
            texts[g] = text
            yield g, text

    result = scan(pattern, remember(), offset + page + 1, budget_s)
    budget = f"{budget_s * 1000:.0f} ms"
    if result.timed_out and not result.hits:
        return RecallAnswer(
            f"recall: {TOO_EXPENSIVE}: the search used its {budget} budget after {result.scanned} "
            "entries without a match; narrow the scope or simplify the pattern",
            error=True,
        )
    chosen = result.hits[offset : offset + page]
    snippets = {g: _context(texts[g], s, e) for g, s, e in chosen}
    more = offset + page if len(result.hits) > offset + page else None
    head = f"recall: regex /{pattern}/ in scope {request.scope} (#{lo}-#{hi}), newest first"
    if result.timed_out:
        head += f"; stopped at the {budget} budget, results may be incomplete"
    return _page_answer(lineage, head, [g for g, _, _ in chosen], more, snippets)


def _context(text: str, start: int, end: int) -> str:
    return f"…{text[max(0, start - 80) : start]}[{text[start:end][:120]}]{text[end : end + 100]}…"


def touched(lineage: Lineage, request: RecallRequest, lo: int, hi: int) -> RecallAnswer:
    path = (request.query or "").strip().removeprefix("./")
    if not path:
        return RecallAnswer('recall: mode "touched" needs a file path as the query', error=True)
    found: list[int] = []
    for segment, llo, lhi in reversed(lineage.parts(lo, hi)):
        found += [segment.to_global(p) for p in segment.index.touched(path, llo, lhi)]
    page, offset = request.page(PAGE), request.offset
    shown = found[offset : offset + page]
    more = offset + page if len(found) > offset + page else None
    touched = counted(len(found), "entry")
    head = f"recall: {touched} touched {path} in scope {request.scope}, newest first"
    return _page_answer(lineage, head, shown, more, {}, len(found))


def recall(lineage: Lineage, request: RecallRequest, *, budget_s: float = BUDGET_S) -> RecallAnswer:
    """Answer one recall request over an open lineage."""
    if request.expand:
        text, shown, cursor = expand_entries(lineage, request.expand, request.offset)
        return RecallAnswer(text, shown, cursor)
    scope = scope_range(lineage, request.scope)
    if isinstance(scope, str):
        return RecallAnswer(f"recall: {scope}", error=True)
    lo, hi = scope
    if request.mode == "touched":
        return touched(lineage, request, lo, hi)
    if not (request.query or "").strip():
        return recent(lineage, request, lo, hi)
    if request.mode == "regex":
        return regex(lineage, request, lo, hi, budget_s)
    return ranked(lineage, request, lo, hi)
