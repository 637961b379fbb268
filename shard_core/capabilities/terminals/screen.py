"""A terminal's screen as text: its output fed through pyte, a VT100/xterm emulator.

`text()` is what a person would see now (cursor moves, clears and redraws applied, colours
dropped); `take_new()` is the output since the last read as plain lines (escape sequences
removed, carriage-return overwrites resolved), capped so a flood cannot grow without bound.
One escape sequence is bounded too (`MAX_SEQUENCE`): pyte keeps an OSC's text and a CSI's
digits until the sequence ends, so an unterminated one would swallow and keep every byte after
it, and a CSI of 4,300 digits raises in `int` (Python's limit).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shard_core.capabilities.terminals.emulator import Screen, Stream

ROWS, COLUMNS = 32, 120
"""the agent's own size, while no person has the terminal open"""
MAX_ROWS, MAX_COLUMNS = 500, 1000
"""a person's window bigger than this is drawn cut (the text the model reads stays bounded)"""
NEW_OUTPUT_CAP = 64_000
"""characters of output kept between two reads (the oldest are dropped, and that is said)"""
MAX_SEQUENCE = 4096
"""characters of one escape sequence (a title, a colour) before it is dropped as garbage"""
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


class TerminalScreen:
    def __init__(self, rows: int = ROWS, columns: int = COLUMNS) -> None:
        from shard_core.capabilities.terminals import emulator  # pyte: with the first terminal

        self.screen: Screen = emulator.Screen(columns, rows)
        self.stream: Stream = emulator.Stream(self.screen, MAX_SEQUENCE)
        self._line = emulator.line
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

    def resize(self, rows: object, columns: object) -> None:
        """The pty's new size (as its server said; nonsense is ignored): what follows is drawn
        for it."""
        if not isinstance(rows, int) or not isinstance(columns, int):
            return
        if isinstance(rows, bool) or isinstance(columns, bool):
            return
        lines, width = min(max(rows, 1), MAX_ROWS), min(max(columns, 1), MAX_COLUMNS)
        if (lines, width) == (self.screen.lines, self.screen.columns):
            return
        screen, dropped = self.screen, max(0, self.screen.lines - lines)
        row = screen.cursor.y - dropped  # pyte drops the top rows: the cursor's row moved up
        screen.resize(lines=lines, columns=width)
        screen.cursor.y, screen.cursor.x = max(0, min(row, lines - 1)), min(screen.cursor.x, width)
        screen.rendered = [""] * lines
        screen.dirty.update(range(lines))

    def _render(self) -> list[str]:
        screen = self.screen
        if len(screen.rendered) != screen.lines:
            screen.rendered = [""] * screen.lines
            screen.dirty.update(range(screen.lines))
        for y in screen.dirty:
            if 0 <= y < screen.lines:
                screen.rendered[y] = self._line(screen.buffer[y], screen.columns)
        screen.dirty.clear()
        return screen.rendered

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
