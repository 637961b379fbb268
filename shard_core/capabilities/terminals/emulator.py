"""pyte, the VT100/xterm emulator under a terminal's screen (screen.py), with two changes: a
scroll that moves the rendered lines, and escape sequences bounded. Imported with the first
terminal, not with the capability."""

from __future__ import annotations

from typing import Any

import pyte


def line(row: dict[int, Any], columns: int) -> str:
    """One buffer row as text. pyte's rows are sparse (only written cells exist), so this
    visits what was written instead of every column."""
    cells = [(x, c.data) for x, c in row.items() if 0 <= x < columns]
    if not cells:
        return ""
    chars = [" "] * (max(x for x, _ in cells) + 1)
    for x, data in cells:
        chars[x] = data
    return "".join(chars).rstrip()


class Screen(pyte.Screen):
    """pyte's screen, whose scroll moves the rendered lines with the rows: pyte marks every
    line dirty when the screen scrolls, which made each echo at the bottom of a full screen
    render all 32 lines again (most of a terminal round trip's own time)."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.rendered = [""] * lines
        """the lines as text, redrawn only where dirty"""

    def index(self) -> None:
        top, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        if self.cursor.y != bottom or len(self.rendered) != self.lines:
            super().index()
            return
        before = self.dirty
        self.dirty = set()
        super().index()  # marks every line; only the new bottom one (and what moved) is
        self.rendered[top:bottom] = self.rendered[top + 1 : bottom + 1]
        self.rendered[bottom] = ""
        moved = {y - 1 if top < y <= bottom else y for y in before}
        self.dirty = moved | {bottom}


class Stream(pyte.ByteStream):
    """pyte's byte stream with every escape sequence bounded: one longer than `max_sequence`
    characters is dropped and the parser starts again, so what follows is drawn; a sequence
    pyte fails on is dropped the same way (pyte resets its parser and raises), the rest of the
    output still drawn. Inside a sequence pyte's feed hands the parser one character at a
    time, through `_send_to_parser`; plain text never comes here."""

    def __init__(self, screen: pyte.Screen, max_sequence: int) -> None:
        super().__init__(screen)
        self._max_sequence = max_sequence
        self._pending = 0

    def _send_to_parser(self, data: str) -> bool | None:
        try:
            taking = super()._send_to_parser(data)
        except Exception:  # a sequence pyte cannot handle: its parser is already reset
            self._pending = 0
            return True
        if taking:
            self._pending = 0
            return taking
        self._pending += 1
        if self._pending <= self._max_sequence:
            return taking
        self._pending = 0
        self._initialize_parser()
        return True
