"""The screen the model reads is pyte's screen: rendering only dirty lines, and moving the
rendered lines on a scroll instead of redrawing them, never changes what it shows."""

from __future__ import annotations

import random

import pyte

from shard_core.capabilities.terminals.screen import MAX_SEQUENCE, TerminalScreen

PIECES = [
    b"line\r\n", b"a longer line of output\r\n", b"\r\n", b"partial", b"\roverwrite",
    b"\x1b[2J", b"\x1b[H", b"\x1b[5;10H", b"\x1b[K", b"\x1b[1A", b"\x1b[3B", b"\x1b[31mred\x1b[0m",
    b"\x1b[2;6r", b"\x1b[r", b"\x1bM", b"\x1bD", b"\t|", b"x" * 130, "\u00e9t\u00e9\r\n".encode(),
]  # fmt: skip


def _expected(screen: pyte.Screen) -> str:
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def test_the_rendered_screen_is_always_pyte_s_display() -> None:
    chooser = random.Random(41)
    for _ in range(40):
        ours = TerminalScreen(rows=8, columns=40)
        plain = pyte.Screen(40, 8)
        stream = pyte.ByteStream(plain)
        for _ in range(60):
            data = b"".join(chooser.choice(PIECES) for _ in range(chooser.randint(1, 6)))
            ours.feed(data)
            stream.feed(data)
            if chooser.random() < 0.5:  # read often and seldom: dirt piles up between reads
                assert ours.text() == _expected(plain)
        assert ours.text() == _expected(plain)


def test_scrolling_a_full_screen_keeps_every_line() -> None:
    screen = TerminalScreen(rows=4, columns=20)
    for n in range(10):
        screen.feed(f"row {n}\r\n".encode())
        assert screen.text().splitlines()[-1] == f"row {n}"
    assert screen.text() == "row 7\nrow 8\nrow 9"


def test_a_resize_draws_what_follows_at_the_new_size_and_keeps_the_cursor_row() -> None:
    screen = TerminalScreen()
    screen.feed(b"".join(b"line %d\r\n" % i for i in range(40)) + b"$ ")
    screen.resize(10, 20)  # a person's smaller window: the bottom rows stay, the cursor on "$ "
    assert (screen.screen.lines, screen.screen.columns) == (10, 20)
    assert screen.cursor_line() == "$"
    screen.feed(b"x" * 30)
    assert screen.text().splitlines()[-2:] == ["$ " + "x" * 18, "x" * 12]
    screen.resize(50, 200)
    assert (screen.screen.lines, screen.screen.columns) == (50, 200)
    assert screen.cursor_line() == "x" * 12
    screen.feed(b"\r\n" + b"y" * 150)
    assert screen.text().splitlines()[-1] == "y" * 150


def test_a_resize_ignores_what_is_not_a_size_and_caps_a_huge_one() -> None:
    screen = TerminalScreen(rows=8, columns=40)
    for rows, columns in (("20", 60), (True, 60), (20, None), (20.5, 60)):
        screen.resize(rows, columns)
        assert (screen.screen.lines, screen.screen.columns) == (8, 40)
    screen.resize(0, -3)
    assert (screen.screen.lines, screen.screen.columns) == (1, 1)
    screen.resize(10**9, 10**9)
    assert (screen.screen.lines, screen.screen.columns) == (500, 1000)


def test_an_unterminated_title_does_not_swallow_or_keep_what_follows() -> None:
    screen = TerminalScreen()
    screen.feed(b"\x1b]0;")  # an OSC (set the title) that never ends
    for _ in range(40):
        screen.feed(b"y" * 65536)
    screen.feed(b"\r\nvisible after the flood\r\n")
    assert screen.text().endswith("visible after the flood")
    assert len(screen.screen.title) <= MAX_SEQUENCE, "pyte's title is not the whole flood"
    screen.feed(b"\x1b]0;a real title\x07\x1b[31mred\x1b[0m\r\n")
    assert screen.screen.title == "a real title", "short sequences still work"
    assert screen.text().endswith("red")


def test_a_sequence_pyte_fails_on_is_dropped_and_the_rest_is_drawn() -> None:
    screen = TerminalScreen()
    # 5,000 digits: pyte's int() raises past Python's 4,300-digit limit; here the bound is
    # reached first, and a failure inside pyte would be dropped the same way
    screen.feed(b"\x1b[" + b"1" * 5000 + b"m" + b"after\r\nnext line\r\n")
    assert screen.text().endswith("after\nnext line")
    screen.feed(b"\x1b[" + b"2" * 4000 + b"mshort enough\r\n")  # under the bound: a colour
    assert screen.text().endswith("next line\nshort enough")
