"""Diff hunks and text decoding, the pieces write and edit are built on."""

from __future__ import annotations

import pytest

from shard_core.tools.diffs import diff_texts
from shard_core.tools.encoding import DecodedText, decode_text, split_lines
from shard_core.types.render import Hunk


def test_a_change_in_the_middle_gets_three_lines_of_context() -> None:
    old = "".join(f"{i}\n" for i in range(1, 11))
    new = old.replace("5\n", "five\n")
    diff = diff_texts(old, new)
    assert diff.hunks == [
        Hunk(
            old_start=2,
            old_lines=7,
            new_start=2,
            new_lines=7,
            lines=[" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"],
        )
    ]
    assert (diff.added, diff.removed) == (1, 1)


def test_distant_changes_make_separate_hunks() -> None:
    old = "".join(f"{i}\n" for i in range(1, 21))
    new = old.replace("2\n", "two\n", 1).replace("19\n", "nineteen\n")
    assert [(h.old_start, h.old_lines) for h in diff_texts(old, new).hunks] == [(1, 5), (16, 5)]


def test_creation_and_deletion_use_zero_starts() -> None:
    created = diff_texts("", "a\nb")
    assert created.hunks == [
        Hunk(old_start=0, old_lines=0, new_start=1, new_lines=2, lines=["+a", "+b"])
    ]
    emptied = diff_texts("a\n", "")
    assert emptied.hunks == [Hunk(old_start=1, old_lines=1, new_start=0, new_lines=0, lines=["-a"])]
    assert diff_texts("same\n", "same\n").hunks == []


def test_line_ending_changes_are_visible_but_clean() -> None:
    diff = diff_texts("a\r\nb\r\n", "a\nb\n")
    assert diff.hunks[0].lines == ["-a", "-b", "+a", "+b"]


@pytest.mark.parametrize(
    ("data", "decoded"),
    [
        (b"plain\n", DecodedText("plain\n", "utf-8")),
        (b"\xef\xbb\xbfbom\n", DecodedText("bom\n", "utf-8-sig")),
        ("naïve\n".encode("latin-1"), DecodedText("naïve\n", "latin-1")),
        (b"\x1b[31mred\x1b[0m\n", DecodedText("\x1b[31mred\x1b[0m\n", "utf-8")),
        (b"a\x00b", None),
        (b"\x89\x01\x02\xff", None),
    ],
)
def test_decode_text(data: bytes, decoded: DecodedText | None) -> None:
    assert decode_text(data) == decoded


def test_split_lines_counts_like_cat() -> None:
    assert split_lines("a\r\nb\n\nc") == ["a", "b", "", "c"]
    assert split_lines("a\fb\n") == ["a\fb"]
    assert split_lines("") == []
