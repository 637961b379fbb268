"""Budgeted regex scans: texts searched a chunk at a time, each match verified in its own text.

With the `regex` package (when installed) every call gets the remaining budget as its timeout;
with the standard `re` the deadline is checked between calls. Patterns must first pass
`pattern_problem` (patterns.py), which refuses the shapes no deadline can interrupt.
"""

from __future__ import annotations

import bisect
import importlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, cast

BUDGET_S = 0.1


class _Match(Protocol):
    def start(self) -> int: ...

    def end(self) -> int: ...


class _Pattern(Protocol):
    def search(self, string: str, pos: int = 0, endpos: int = ..., /) -> _Match | None: ...

    def finditer(self, string: str, /) -> Iterator[_Match]: ...


class _Engine(Protocol):
    def __call__(self, pattern: _Pattern, text: str, timeout: float, /) -> Iterator[_Match]: ...


def _compile(pattern: str) -> tuple[_Pattern, _Engine]:
    """The compiled pattern (MULTILINE: `^`/`$` match at line ends) and how to iterate it:
    the `regex` package with a per-call timeout when installed, else the standard `re`."""
    try:
        module = importlib.import_module("regex")
    except ImportError:
        compiled = cast(_Pattern, re.compile(pattern, re.MULTILINE))
        return compiled, lambda p, text, timeout: p.finditer(text)
    flags = cast(int, module.MULTILINE)
    compiled = cast(_Pattern, module.compile(pattern, flags))

    def run(p: _Pattern, text: str, timeout: float) -> Iterator[_Match]:
        finditer = cast(Callable[..., Iterator[_Match]], p.finditer)
        return finditer(text, timeout=timeout)

    return compiled, run


def engine() -> str:
    try:
        importlib.import_module("regex")
    except ImportError:
        return "re"
    return "regex"


@dataclass
class Scan:
    """What a budgeted regex scan found, and whether it ran out of time."""

    hits: list[tuple[int, int, int]] = field(default_factory=list[tuple[int, int, int]])
    """(key, match start, match end), in the order the texts came."""
    timed_out: bool = False
    scanned: int = 0


_SEPARATOR = "\n\x00\n"
CHUNK_CHARS = 1 << 20
FIRST_CHUNK_CHARS = 1 << 14


class _Scanner:
    def __init__(self, pattern: str, limit: int, budget_s: float) -> None:
        self.compiled, self.run = _compile(pattern)
        self.limit = limit
        self.deadline = time.monotonic() + budget_s
        self.result = Scan()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def chunk(self, rows: list[tuple[int, str]]) -> bool:
        """Search one chunk of texts joined; verify each text a match touches on its own (a
        match may run across the joins). False once done: enough hits, or out of time."""
        starts: list[int] = []
        offset = 0
        for _, text in rows:
            starts.append(offset)
            offset += len(text) + len(_SEPARATOR)
        joined = _SEPARATOR.join(text for _, text in rows)
        checked: set[int] = set()
        for match in self.run(self.compiled, joined, max(self.remaining(), 0.001)):
            first = bisect.bisect_right(starts, match.start()) - 1
            last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
            for i in range(first, last + 1):
                if i not in checked:
                    checked.add(i)
                    if self._verify(rows[i]) and len(self.result.hits) >= self.limit:
                        return False
            if self.remaining() <= 0:
                self.result.timed_out = True
                return False
        self.result.scanned += len(rows)
        return True

    def _verify(self, row: tuple[int, str]) -> bool:
        found = next(iter(self.run(self.compiled, row[1], max(self.remaining(), 0.001))), None)
        if found is not None:
            self.result.hits.append((row[0], found.start(), found.end()))
        return found is not None


def scan(
    pattern: str, texts: Iterable[tuple[int, str]], limit: int, budget_s: float = BUDGET_S
) -> Scan:
    """Search (key, text) pairs in order until `limit` hits or the budget is spent, a chunk of
    texts per regex call. The pattern must have passed `pattern_problem`."""
    scanner = _Scanner(pattern, limit, budget_s)
    rows: list[tuple[int, str]] = []
    size = 0
    chunk = FIRST_CHUNK_CHARS  # small first, so the newest hits come back fast
    try:
        for row in texts:
            rows.append(row)
            size += len(row[1])
            if size >= chunk or scanner.remaining() <= 0:
                chunk = min(chunk * 4, CHUNK_CHARS)
                if scanner.remaining() <= 0:
                    scanner.result.timed_out = True
                    return scanner.result
                if not scanner.chunk(rows):
                    return scanner.result
                rows, size = [], 0
        if rows:
            scanner.chunk(rows)
    except TimeoutError:
        scanner.result.timed_out = True
    return scanner.result
