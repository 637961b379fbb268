"""Diff building: unified-diff hunks between two texts, as `Hunk` wire models."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from shard_core.types.render import Hunk


@dataclass(frozen=True)
class TextDiff:
    hunks: list[Hunk]
    added: int
    removed: int


def diff_texts(old: str, new: str, context: int = 3) -> TextDiff:
    """Hunks turning `old` into `new`; a line-ending-only change shows as a changed line."""
    # Lines keep their endings while comparing so CRLF -> LF is a visible change, and lose them
    # for display so renderers never see stray \r characters.
    a = _lines(old)
    b = _lines(new)
    hunks: list[Hunk] = []
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + _bare(x) for x in a[i1:i2]]
                continue
            lines += ["-" + _bare(x) for x in a[i1:i2]]
            lines += ["+" + _bare(x) for x in b[j1:j2]]
            removed += i2 - i1
            added += j2 - j1
        first, last = group[0], group[-1]
        hunks.append(_hunk(first[1], last[2], first[3], last[4], lines))
    return TextDiff(hunks, added, removed)


def _hunk(i1: int, i2: int, j1: int, j2: int, lines: list[str]) -> Hunk:
    # Unified-diff convention: 1-based starts, except an empty range starts at the line before.
    old_lines, new_lines = i2 - i1, j2 - j1
    return Hunk(
        old_start=i1 + 1 if old_lines else i1,
        old_lines=old_lines,
        new_start=j1 + 1 if new_lines else j1,
        new_lines=new_lines,
        lines=lines,
    )


def _lines(text: str) -> list[str]:
    # Only \n ends a line, as in the read tool's numbering (str.splitlines also splits on \f…).
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _bare(line: str) -> str:
    return line.removesuffix("\n").removesuffix("\r")
