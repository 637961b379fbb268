"""The terminal and web cards in the text view (`shard run`, a cell's text/plain): a terminal's
screen under its heading with the Lab terminal's name, a page's title, URL and the first lines
of its text; escapes in any of it are shown, never obeyed."""

from __future__ import annotations

import io

from shard_core.types import TerminalDescriptor, WebPageDescriptor
from shard_kernel.terminal.render import FOLDED, TerminalRenderer


def test_a_terminal_card_is_its_heading_and_screen() -> None:
    card = TerminalDescriptor(terminal_id="t1", name="repl", command="python3 -i",
                              state="running", screen=">>> print(6*7)\n42\n>>>",
                              server_terminal="shard_a1_t1_9f")  # fmt: skip
    rows = TerminalRenderer(io.StringIO(), color=False).descriptor(card)
    assert rows == [
        "terminal t1 (repl): python3 -i — running · in Lab: shard_a1_t1_9f",
        ">>> print(6*7)",
        "42",
        ">>>",
    ]
    blank = card.model_copy(update={"screen": "", "server_terminal": None, "state": "ended"})
    rows = TerminalRenderer(io.StringIO(), color=False).descriptor(blank)
    assert rows == ["terminal t1 (repl): python3 -i — ended", "(blank)"]


def test_a_web_card_shows_title_url_and_the_first_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(20)) + "\x1b]52;c;evil\x07"
    card = WebPageDescriptor(url="https://docs.python.org/3/", title="Python \x1b[2J", text=text)
    rows = TerminalRenderer(io.StringIO(), color=False).descriptor(card)
    assert rows[:2] == ["Python \\x1b[2J", "https://docs.python.org/3/"]
    assert rows[2:] == [f"line {i}" for i in range(FOLDED)]
    assert all("\x1b" not in row for row in rows)
