"""plain_text: the text/plain fallback of a Markdown reply (slash commands' tables and notes).

A client that shows text/plain (a terminal, `jupyter console`, nbclient's saved outputs read as
text) should read words, not Markdown: no `**`, no backticks, no backslash escapes, tables as
aligned columns. Only the Markdown Shard itself writes is handled: bold, code spans, escapes,
pipe tables.
"""

from __future__ import annotations

import re

__all__ = ["plain_text"]

_CODE = re.compile(r"(?<!\\)(`+)(.+?)(?<!\\)\1")
_BOLD = re.compile(r"(?<!\\)(\*\*|__)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r":?-+:?")


def plain_text(markdown: str) -> str:
    lines = markdown.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if _is_row(lines[i]):
            start = i
            while i < len(lines) and _is_row(lines[i]):
                i += 1
            out.extend(_table(lines[start:i]))
        else:
            out.append(_inline(lines[i]))
            i += 1
    return "\n".join(out) + ("\n" if markdown.endswith("\n") else "")


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def _table(rows: list[str]) -> list[str]:
    cells = [[c.strip() for c in _CELL_BORDER.split(row.strip())[1:-1]] for row in rows]
    cells = [
        [_inline(c) for c in row] for row in cells if not all(_SEPARATOR.fullmatch(c) for c in row)
    ]
    width = max(len(row) for row in cells) if cells else 0
    sizes = [max((len(row[n]) for row in cells if n < len(row)), default=0) for n in range(width)]
    return ["  ".join(c.ljust(sizes[n]) for n, c in enumerate(row)).rstrip() for row in cells]


def _inline(text: str) -> str:
    """Code spans verbatim; elsewhere bold markers dropped and escapes undone."""
    parts: list[str] = []
    end = 0
    for match in _CODE.finditer(text):
        parts.append(_prose(text[end : match.start()]))
        parts.append(match.group(2).strip() if match.group(2).strip() else match.group(2))
        end = match.end()
    parts.append(_prose(text[end:]))
    return "".join(parts)


def _prose(text: str) -> str:
    return _ESCAPE.sub(r"\1", _BOLD.sub("", text))
