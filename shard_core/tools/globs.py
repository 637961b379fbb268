"""Glob patterns as regexes over slash-separated relative paths: *, **, ?, [...] and {a,b}."""

from __future__ import annotations

import re


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches the relative paths `pattern` names.

    A pattern without a slash matches a file name at any depth (`*.py` finds every Python
    file), as in ripgrep and fd; with a slash it is anchored at the search directory.
    """
    pattern = pattern.removeprefix("./").lstrip("/")
    if "/" not in pattern:
        pattern = "**/" + pattern
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        piece, i = _token(pattern, i)
        out.append(piece)
    return "".join(out)


def _token(p: str, i: int) -> tuple[str, int]:
    """The regex for the glob token starting at `i`, and where the next token starts."""
    if p.startswith("**/", i):
        return "(?:.*/)?", i + 3
    if p.startswith("**", i):
        return ".*", i + 2
    char = p[i]
    if char == "*":
        return "[^/]*", i + 1
    if char == "?":
        return "[^/]", i + 1
    if char == "[":
        return _char_class(p, i)
    if char == "{":
        return _alternatives(p, i)
    return re.escape(char), i + 1


def _char_class(p: str, i: int) -> tuple[str, int]:
    start = i + 1
    if start < len(p) and p[start] in "!^":
        start += 1
    # A ] right after the opening bracket is a literal member, as in shell globs.
    close = p.find("]", start + 1)
    if close == -1:
        return re.escape("["), i + 1
    body = p[start:close].replace("\\", "\\\\")
    negate = "^" if start > i + 1 else ""
    return f"[{negate}{body}]", close + 1


def _alternatives(p: str, i: int) -> tuple[str, int]:
    depth = 0
    parts: list[str] = []
    begin = i + 1
    for j in range(i, len(p)):
        if p[j] == "{":
            depth += 1
        elif p[j] == "}":
            depth -= 1
            if depth == 0:
                parts.append(p[begin:j])
                return "(?:" + "|".join(_translate(x) for x in parts) + ")", j + 1
        elif p[j] == "," and depth == 1:
            parts.append(p[begin:j])
            begin = j + 1
    return re.escape("{"), i + 1
