"""Content search results: the query, the lines found, and the cap both search engines share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# Matches are counted past the cap so the model learns how many it missed; past this ceiling
# the search stops, because counting millions of hits costs more than the number is worth.
SCAN_CEILING = 10_000


@dataclass(frozen=True)
class SearchQuery:
    pattern: str
    target: Path
    root: Path
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    context: int = 0
    max_results: int = 200


@dataclass(frozen=True)
class SearchLine:
    path: Path
    number: int
    text: str
    is_match: bool


@dataclass
class SearchOutcome:
    lines: list[SearchLine] = field(default_factory=list[SearchLine])
    matches: int = 0
    complete: bool = True
    error: str | None = None


class Collector:
    """Keeps the first `max_results` matches (with their context) and counts the rest."""

    def __init__(self, query: SearchQuery) -> None:
        self._max = query.max_results
        self._context = query.context
        self.outcome = SearchOutcome()

    def add(self, line: SearchLine) -> bool:
        """Record one line; False once the scan ceiling is reached and the search should stop."""
        outcome = self.outcome
        if line.is_match:
            outcome.matches += 1
        if outcome.matches <= self._max:
            outcome.lines.append(line)
        if outcome.matches >= SCAN_CEILING:
            outcome.complete = False
            return False
        return True

    def finish(self) -> SearchOutcome:
        """The outcome, minus before-context that belonged to the first match past the cap."""
        lines = self.outcome.lines
        last = next((x for x in reversed(lines) if x.is_match), None)
        if last is not None and self.outcome.matches > self._max:
            while lines and not lines[-1].is_match and not self._trails(lines[-1], last):
                lines.pop()
        return self.outcome

    def _trails(self, line: SearchLine, match: SearchLine) -> bool:
        return line.path == match.path and line.number <= match.number + self._context
