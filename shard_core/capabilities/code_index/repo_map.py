"""The repo map: the workspace's most relevant definitions for the task at hand, in a budget.

Files are ranked by PageRank over the reference graph (file A → file B when A names something
B defines; weight √count, shared among B's rivals for that name; a name more than MAX_DEFINERS
files define is too common to say anything and is left out), personalised towards the
focus files (those mentioned or edited in the session, or named in the call). Each file's rank
then flows along its edges to the definitions it uses; the best definitions are rendered,
grouped by file, until the token budget (≈ 4 characters a token) is spent.
"""

from __future__ import annotations

import builtins
import math
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from shard_core.capabilities.code_index.store import IndexedFile

GENERIC_NAMES = frozenset(
    {n for t in (builtins, object, str, bytes, list, dict, set, int, float) for n in dir(t)}
    | {"push", "map", "filter", "forEach", "then", "catch", "log", "toString", "length",
       "reduce", "some", "every", "slice", "splice", "includes", "indexOf", "apply", "call",
       "bind", "cast", "new", "Ok", "Err", "Some", "unwrap", "clone", "to_string", "len", "fmt",
       "printf", "malloc", "free", "puts", "require", "String", "Object", "Array", "Error"}
)  # fmt: skip
"""Names built into the languages or their standard containers: a call to `x.join(...)` says
nothing about which workspace file it means."""

DAMPING = 0.85
ITERATIONS = 100
TOLERANCE = 1e-4
"""L1 change per iteration that ends it: the ranking is then within ~6e-4 of the fixed point"""
MAX_DEFINERS = 20
MAX_ENTRIES = 2_000
"""the best (file, name) pairs resolved to definitions: far more than any budget shows"""
CHARS_PER_TOKEN = 4
_FOCUS_NAME_BOOST = 10.0
_PRIVATE_DAMPING = 0.1


@dataclass(frozen=True)
class MapEntry:
    path: str
    line: int
    signature: str
    rank: float


class Graph:
    """Files as nodes 0..n-1; per source the (target, share) transitions summing to 1, and the
    (target, name, share) uses behind them, for scoring definitions.

    `update` follows the index: a file whose entry changed gets its row again, and so does
    every file that names something the change defined or undefined; only a file added or
    removed rebuilds it all (node numbers shift)."""

    def __init__(self, files: Mapping[str, IndexedFile], focus_names: Collection[str] = ()):
        self.focus_names = frozenset(focus_names)
        self.nodes = sorted(files)
        self._at = {rel: i for i, rel in enumerate(self.nodes)}
        self._files = dict(files)
        self.definers: dict[str, list[int]] = defaultdict(list)
        self.referrers: dict[str, set[int]] = defaultdict(set)
        for i, rel in enumerate(self.nodes):
            for name in _defined(files[rel]):
                self.definers[name].append(i)
            for name in files[rel].symbols.references:
                self.referrers[name].add(i)
        self.out: list[list[tuple[int, float]]] = [[] for _ in self.nodes]
        self.uses: list[list[tuple[int, str, float]]] = [[] for _ in self.nodes]
        self.pairs: list[tuple[int, str]] = []
        """every (target, name) a use has named, numbered in the order first seen"""
        self._pair: dict[tuple[int, str], int] = {}
        self.pair_uses: list[int] = []
        """how many rows use each pair now (an edit can leave one unused)"""
        self.use_ids: list[list[tuple[int, float]]] = [[] for _ in self.nodes]
        """`uses` with each (target, name) as its number in `pairs`: what scoring adds up"""
        for i in range(len(self.nodes)):
            self._row(i)

    def update(self, files: Mapping[str, IndexedFile]) -> Graph:
        """This graph brought up to `files` (itself), or a new one when files came or went."""
        if len(files) != len(self.nodes) or any(rel not in self._at for rel in files):
            return Graph(files, self.focus_names)
        changed = [rel for rel, entry in files.items() if self._files[rel] is not entry]
        touched: set[int] = set()
        for rel in changed:
            i, old, new = self._at[rel], self._files[rel], files[rel]
            before = _defined(old)
            for name in before ^ _defined(new):
                touched |= self.referrers.get(name, set())
                if name in before:
                    self.definers[name].remove(i)
                else:
                    self.definers[name].append(i)
                    self.definers[name].sort()
            for name in old.symbols.references:
                self.referrers[name].discard(i)
            for name in new.symbols.references:
                self.referrers[name].add(i)
            self._files[rel] = new
            touched.add(i)
        for i in touched:
            self._row(i)
        return self

    def _row(self, i: int) -> None:
        used: list[tuple[int, str, float]] = []
        for name, count in self._files[self.nodes[i]].symbols.references.items():
            targets = self.definers.get(name)
            if not targets or len(targets) > MAX_DEFINERS or name in GENERIC_NAMES:
                continue  # unknown here, or too common (`__init__`, `join`) to say anything
            weight = math.sqrt(count) / len(targets)
            if name in self.focus_names:
                weight *= _FOCUS_NAME_BOOST
            elif name.startswith("_"):
                weight *= _PRIVATE_DAMPING
            used += [(t, name, weight) for t in targets if t != i]
        total = sum(w for _, _, w in used)
        pairs: dict[int, float] = defaultdict(float)
        for t, _, w in used:
            pairs[t] += w / total
        self.out[i] = list(pairs.items())
        self.uses[i] = [(t, name, w / total) for t, name, w in used]
        for pair, _ in self.use_ids[i]:
            self.pair_uses[pair] -= 1
        self.use_ids[i] = [(self._pair_id(t, name), w / total) for t, name, w in used]
        for pair, _ in self.use_ids[i]:
            self.pair_uses[pair] += 1

    def _pair_id(self, target: int, name: str) -> int:
        key = (target, name)
        found = self._pair.get(key)
        if found is None:
            found = self._pair[key] = len(self.pairs)
            self.pairs.append(key)
            self.pair_uses.append(0)
        return found


def _defined(entry: IndexedFile) -> set[str]:
    return {d.name for d in entry.symbols.definitions if d.kind != "heading"}


def pagerank(
    graph: Graph, focus: Collection[str], start: Sequence[float] | None = None
) -> list[float]:
    """Personalised PageRank by power iteration; dangling rank returns to the focus. `start`
    (the last ranking, before an edit) converges in a few iterations where uniform takes
    dozens; the fixed point is the same."""
    n = len(graph.nodes)
    if n == 0:
        return []
    chosen = [i for i, rel in enumerate(graph.nodes) if rel in focus] or list(range(n))
    base = [(i, 1.0 / len(chosen)) for i in chosen]
    rank = list(start) if start is not None and len(start) == n else [1.0 / n] * n
    for _ in range(ITERATIONS):
        nxt = [0.0] * n
        dangling = 0.0
        for value, row in zip(rank, graph.out, strict=True):
            if not row:
                dangling += value
                continue
            flow = DAMPING * value
            for target, share in row:
                nxt[target] += flow * share
        leak = (1 - DAMPING) + DAMPING * dangling
        for i, p in base:
            nxt[i] += leak * p
        change = sum(abs(a - b) for a, b in zip(nxt, rank, strict=True))
        rank = nxt
        if change < TOLERANCE:
            break
    return rank


def ranked_definitions(
    files: Mapping[str, IndexedFile], graph: Graph, rank: Sequence[float]
) -> list[MapEntry]:
    """Definitions by the rank that flows to them along the uses, best first. (Summed per
    numbered pair in a list: a dict keyed by (target, name) took 70% of a map after an edit.)"""
    score = [0.0] * len(graph.pairs)
    for value, used in zip(rank, graph.use_ids, strict=True):
        for pair, share in used:
            score[pair] += value * share
    live = [i for i, uses in enumerate(graph.pair_uses) if uses]
    top = sorted(live, key=score.__getitem__, reverse=True)[:MAX_ENTRIES]  # (stable: ties
    best = [(graph.pairs[i], score[i]) for i in top]  # in the order first used, as before)
    wanted: dict[int, dict[str, float]] = defaultdict(dict)
    for (target, name), value in best:
        wanted[target][name] = value
    entries: list[MapEntry] = []
    for target, names in wanted.items():
        rel = graph.nodes[target]
        for d in files[rel].symbols.definitions:
            value = names.get(d.name)
            if value is not None and d.kind != "heading":
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
