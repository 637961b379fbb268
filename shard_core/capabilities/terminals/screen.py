"""A terminal's screen as text: its output fed through pyte, a VT100/xterm emulator.

`text()` is what a person would see now (cursor moves, clears and redraws applied, colours
dropped); `take_new()` is the output since the last read as plain lines (escape sequences
removed, carriage-return overwrites resolved), capped so a flood cannot grow without bound.
"""

from __future__ import annotations

import re
from typing import Any

import pyte

ROWS, COLUMNS = 32, 120
NEW_OUTPUT_CAP = 64_000
"""characters of output kept between two reads (the oldest are dropped, and that is said)"""
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC, ended by BEL or ST
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS/SOS/PM/APC
    r"|\x1b[@-Z\\-_]"  # two-byte
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"  # other controls but \t \n \r
)


def plain(text: str) -> str:
    """Terminal output as plain lines: escapes gone, `\\r` overwrites resolved."""
    lines: list[str] = []
    for line in _ESCAPES.sub("", text).replace("\r\n", "\n").split("\n"):
        lines.append(line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r"))
    return "\n".join(lines)


def _line(row: dict[int, Any], columns: int) -> str:
    """One buffer row as text. pyte's rows are sparse (only written cells exist), so this
    visits what was written instead of every column."""
    cells = [(x, c.data) for x, c in row.items() if 0 <= x < columns]
    if not cells:
        return ""
    chars = [" "] * (max(x for x, _ in cells) + 1)
    for x, data in cells:
        chars[x] = data
    return "".join(chars).rstrip()


class TerminalScreen:
    def __init__(self, rows: int = ROWS, columns: int = COLUMNS) -> None:
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self._lines = [""] * rows
        """the rendered lines, redrawn only where pyte marked them dirty"""
        self._new: list[str] = []
        self._new_size = 0
        self.dropped = 0
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.stream.feed(data)
        text = data.decode("utf-8", errors="replace")
        self.total += len(text)
        self._new.append(text)
        self._new_size += len(text)
        while self._new_size > NEW_OUTPUT_CAP and len(self._new) > 1:
            gone = self._new.pop(0)
            self._new_size -= len(gone)
            self.dropped += len(gone)
        if self._new_size > NEW_OUTPUT_CAP:
            keep = self._new[0][-NEW_OUTPUT_CAP:]
            self.dropped += self._new_size - len(keep)
            self._new, self._new_size = [keep], len(keep)

    def _render(self) -> list[str]:
        screen = self.screen
        if len(self._lines) != screen.lines:
            self._lines = [""] * screen.lines
            screen.dirty.update(range(screen.lines))
        for y in screen.dirty:
            if 0 <= y < screen.lines:
                self._lines[y] = _line(screen.buffer[y], screen.columns)
        screen.dirty.clear()
        return self._lines

    def text(self) -> str:
        lines = list(self._render())
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)

    def cursor_line(self) -> str:
        return self._render()[self.screen.cursor.y]

    def peek_new(self) -> str:
        return plain("".join(self._new))

    def take_new(self) -> tuple[str, int]:
        """The output since the last take, and how many characters of it were dropped."""
        text, dropped = self.peek_new(), self.dropped
        self._new, self._new_size, self.dropped = [], 0, 0
        return text, dropped
