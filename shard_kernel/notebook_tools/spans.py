"""Where each cell sits in a notebook file's text, so an edit can keep untouched cells' bytes.

Re-serialising a whole notebook rewrites every cell in the writer's own style (indentation, key
order, source as one string or a list of lines); a notebook written by another tool would then
change everywhere on a one-cell edit. Knowing each cell's exact span lets `document.py` splice:
untouched cells, the metadata and everything around the `cells` array stay byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Inside a string: everything up to the closing quote, escapes included.
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)
_INTERESTING = re.compile(r'["{}\[\],:]')


@dataclass(frozen=True)
class CellSpans:
    """The `cells` array of a notebook's top-level object: its brackets and its elements."""

    open: int
    """offset of the array's `[`"""
    close: int
    """offset of the array's `]`"""
    cells: tuple[tuple[int, int], ...]
    """(start, end) of each element's text, end exclusive, in order"""


def cell_spans(text: str) -> CellSpans | None:
    """The spans of the top-level `cells` array, or None when the text is not shaped as expected
    (the caller then falls back to writing the whole notebook)."""
    return _Scanner(text).run()


class _Scanner:
    """One pass over the text, jumping from one structural character to the next."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.depth = 0
        self.key: str | None = None
        self.last_string: str | None = None
        self.open: int | None = None
        self.start: int | None = None
        self.cells: list[tuple[int, int]] = []

    def run(self) -> CellSpans | None:
        pos = 0
        while (match := _INTERESTING.search(self.text, pos)) is not None:
            at, char = match.start(), match.group()
            if char == '"':
                body = _STRING_BODY.match(self.text, at + 1)
                if body is None:
                    return None
                self.last_string = self.text[at + 1 : body.end() - 1]
                self._element_starts(at)
                pos = body.end()
                continue
            pos = at + 1
            if char == ":" and self.depth == 1:
                self.key = self.last_string
            elif char in "{[":
                self._opening(char, at)
            elif char in "}]":
                self.depth -= 1
                if self.open is not None and self.depth == 1:
                    self._element_ends(at)
                    return CellSpans(self.open, at, tuple(self.cells))
            elif char == "," and self.open is not None and self.depth == 2:
                self._element_ends(at)
        return None

    def _opening(self, char: str, at: int) -> None:
        if self.depth == 1 and self.key == "cells" and char == "[" and self.open is None:
            self.open = at
        else:
            self._element_starts(at)
        self.depth += 1

    def _element_starts(self, at: int) -> None:
        if self.open is not None and self.depth == 2 and self.start is None:
            self.start = at

    def _element_ends(self, at: int) -> None:
        if self.start is not None:
            self.cells.append((self.start, _trim_end(self.text, at)))
            self.start = None


def _trim_end(text: str, at: int) -> int:
    end = at
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    return end
