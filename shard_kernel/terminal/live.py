"""A running tool's card drawn live at the bottom of a terminal: each `tool_update` redraws it in
place, and the tool's result replaces it.

Only on a TTY: the block is erased by moving the cursor up over the rows it took (`CSI n F`)
and clearing to the end of the screen (`CSI J`), so it counts the rows each line takes at the
terminal's width (wide characters as two columns) and is never taller than the screen. A log or
a pipe gets no updates, only the result. The rows come already made safe (`terminal_safe`) and
styled by the renderer.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from typing import TextIO

_STYLE = re.compile(r"\x1b\[[0-9;]*m")
"""the renderer's own colours: the only escapes in a row (untrusted text is made safe first)"""


def columns_of(row: str) -> int:
    plain = _STYLE.sub("", row)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in plain)


class LiveCards:
    """The running tools' cards, drawn together as one block at the bottom."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.cards: dict[str, list[str]] = {}
        """each running call's latest card, in the order the calls first updated"""
        self._rows = 0
        """the rows the block takes on the screen now (0: not drawn, or printed over)"""

    def update(self, call_id: str, lines: list[str]) -> None:
        self.cards[call_id] = lines
        self.redraw()

    def finish(self, call_id: str) -> bool:
        """The call's result is about to be printed: its card leaves the block (the block is
        erased; `redraw` after the result brings the others back). Whether it had a card."""
        had = self.cards.pop(call_id, None) is not None
        if had:
            self.erase()
        return had

    def redraw(self) -> None:
        size = shutil.get_terminal_size()
        width, height = max(size.columns, 20), max(size.lines, 4)
        lines = [line for card in self.cards.values() for line in card][-(height - 1) :]
        heights = [max(1, -(-columns_of(line) // width)) for line in lines]
        while lines and sum(heights) > height - 1:  # wrapped lines: keep the bottom that fits
            lines, heights = lines[1:], heights[1:]
        self.erase()
        self.out.write("".join(line + "\n" for line in lines))
        self.out.flush()
        self._rows = sum(heights)

    def erase(self) -> None:
        """Remove the block from the screen; the cursor goes back to where it began."""
        if self._rows:
            self.out.write(f"\x1b[{self._rows}F\x1b[J")
        self._rows = 0

    def freeze(self) -> None:
        """Something else is printed below the block: it stays as drawn; the next update draws
        the cards again below."""
        self._rows = 0

    def clear(self) -> None:
        self.cards.clear()
        self._rows = 0
