"""The repo map: the workspace's most relevant definitions for the task at hand, in a budget.

Files are ranked by PageRank over the reference graph (file A → file B when A names something
B defines; weight √count, shared among B's rivals for that name), personalised towards the
focus files (those mentioned or edited in the session, or named in the call). Each file's rank
then flows along its edges to the definitions it uses; the best definitions are rendered,
grouped by file, until the token budget (≈ 4 characters a token) is spent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from shard_core.capabilities.code_index.store import IndexedFile

DAMPING = 0.85
ITERATIONS = 30
CHARS_PER_TOKEN = 4
_FOCUS_NAME_BOOST = 10.0
_PRIVATE_DAMPING = 0.1


@dataclass(frozen=True)
class MapEntry:
    path: str
    line: int
    signature: str
    rank: float


Edges = dict[str, list[tuple[str, str, float]]]
"""source file → [(target file, name, weight)]"""


def build_edges(files: Mapping[str, IndexedFile], focus_names: Collection[str] = ()) -> Edges:
    definers: dict[str, list[str]] = defaultdict(list)
    for rel, entry in files.items():
        for name in {d.name for d in entry.symbols.definitions if d.kind != "heading"}:
            definers[name].append(rel)
    edges: Edges = {}
    for rel, entry in files.items():
        out: list[tuple[str, str, float]] = []
        for name, count in entry.symbols.references.items():
            targets = definers.get(name)
            if not targets:
                continue
            weight = math.sqrt(count) / len(targets)
            if name in focus_names:
                weight *= _FOCUS_NAME_BOOST
            elif name.startswith("_"):
                weight *= _PRIVATE_DAMPING
            out += [(target, name, weight) for target in targets if target != rel]
        edges[rel] = out
    return edges


def pagerank(nodes: list[str], edges: Edges, focus: Collection[str]) -> dict[str, float]:
    """Personalised PageRank by power iteration; dangling rank returns to the focus."""
    if not nodes:
        return {}
    chosen = [n for n in nodes if n in focus]
    base = {n: 1.0 / len(chosen) for n in chosen} if chosen else {n: 1 / len(nodes) for n in nodes}
    totals = {n: sum(w for _, _, w in edges.get(n, ())) for n in nodes}
    rank = {n: 1.0 / len(nodes) for n in nodes}
    for _ in range(ITERATIONS):
        nxt = dict.fromkeys(nodes, 0.0)
        dangling = 0.0
        for source, value in rank.items():
            total = totals[source]
            if total <= 0:
                dangling += value
                continue
            share = DAMPING * value / total
            for target, _, weight in edges[source]:
                nxt[target] += share * weight
        leak = (1 - DAMPING) + DAMPING * dangling
        for node, p in base.items():
            nxt[node] += leak * p
        rank = nxt
    return rank


def ranked_definitions(
    files: Mapping[str, IndexedFile], focus: Collection[str], focus_names: Collection[str] = ()
) -> list[MapEntry]:
    edges = build_edges(files, focus_names)
    rank = pagerank(sorted(files), edges, focus)
    score: dict[tuple[str, str], float] = defaultdict(float)
    for source, out in edges.items():
        total = sum(w for _, _, w in out)
        for target, name, weight in out:
            score[(target, name)] += rank[source] * weight / total
    entries: list[MapEntry] = []
    for (rel, name), value in score.items():
        for d in files[rel].symbols.definitions:
            if d.name == name and d.kind != "heading":
                entries.append(MapEntry(rel, d.line, d.signature, value))
    entries.sort(key=lambda e: (-e.rank, e.path, e.line))
    return entries


def fit(entries: list[MapEntry], budget_tokens: int) -> dict[str, list[MapEntry]]:
    """The best entries that fit the budget, grouped by file in rank order, lines sorted."""
    room = budget_tokens * CHARS_PER_TOKEN
    chosen: dict[str, list[MapEntry]] = {}
    for entry in entries:
        cost = len(entry.signature) + 8 + (0 if entry.path in chosen else len(entry.path) + 2)
        if cost > room:
            continue
        room -= cost
        chosen.setdefault(entry.path, []).append(entry)
    return {path: sorted(found, key=lambda e: e.line) for path, found in chosen.items()}


def render(chosen: Mapping[str, list[MapEntry]]) -> str:
    lines: list[str] = []
    for path, entries in chosen.items():
        lines.append(f"{path}:")
        lines += [f"  {e.line:>4}: {e.signature}" for e in entries]
    return "\n".join(lines)
