"""Regex patterns before they run: refuse what is known to explode; find a literal to prefilter.

A pattern is refused with "pattern too expensive" when it is longer than MAX_PATTERN_CHARS or
repeats a group that itself varies in length (`(a+)+`, `(.*a){20}`): the classic shapes of
catastrophic backtracking, whose cost no deadline check inside Python can interrupt — this
check answers at once, whichever regex engine is installed. What passes runs on a time budget
(scan.py).
"""

from __future__ import annotations

import re

MAX_PATTERN_CHARS = 500
TOO_EXPENSIVE = "pattern too expensive"


def _skip_class(pattern: str, i: int) -> int:
    """Index just past the character class opening at `i`."""
    i += 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _skip_group_prefix(pattern: str, i: int) -> int:
    """Index past `?:`, `?P<name>`, `?<=`, `?=`, `?i` … after an opening parenthesis."""
    if i >= len(pattern) or pattern[i] != "?":
        return i
    close = {"P": ">", "<": ">", "'": "'"}
    i += 1
    if i < len(pattern) and pattern[i] in ":=!":
        return i + 1
    if pattern[i : i + 2] in ("<=", "<!"):
        return i + 2
    if i < len(pattern) and pattern[i] in close:
        end = pattern.find(close[pattern[i]], i + 1)
        return len(pattern) if end < 0 else end + 1
    while i < len(pattern) and (pattern[i].isalpha() or pattern[i] in "-:"):
        i += 1
    return i


_COUNTED = re.compile(r"\{(\d*)(,?)(\d*)\}")


def _quantifier(pattern: str, i: int) -> tuple[int, bool, bool] | None:
    """(length, repeats more than once?, variable count?) of a quantifier at `i`."""
    c = pattern[i]
    if c in "*+":
        return 1, True, True
    if c == "?":
        return 1, False, True
    if c == "{":
        found = _COUNTED.match(pattern, i)
        if found and found.group(1):
            low = int(found.group(1))
            high = None if found.group(2) and not found.group(3) else int(found.group(3) or low)
            return found.end() - i, high is None or high > 1, high != low
    return None


def nested_repetition(pattern: str) -> bool:
    """Does a repeated group contain a variable repetition of its own (`(a+)+`, `(.*a){20}`)?"""
    inner: list[bool] = [False]  # per open group: does it contain a variable repetition?
    closed = False  # the atom just before is a group that does
    i = 0
    while i < len(pattern):
        c = pattern[i]
        quantifier = _quantifier(pattern, i)
        if quantifier is not None:
            length, repeats, variable = quantifier
            if repeats and closed:
                return True
            inner[-1] = inner[-1] or variable
            i += length
            if i < len(pattern) and pattern[i] in "?+":
                i += 1  # lazy or possessive marker
            closed = False
            continue
        closed = False
        if c == "\\":
            i += 2
        elif c == "[":
            i = _skip_class(pattern, i)
        elif c == "(":
            inner.append(False)
            i = _skip_group_prefix(pattern, i + 1)
        elif c == ")" and len(inner) > 1:
            closed = inner.pop()
            inner[-1] = inner[-1] or closed
            i += 1
        else:
            i += 1
    return False


_META = set("\\.^$*+?{}[]()|")


def required_literal(pattern: str) -> str | None:
    """The longest plain text every match must contain (at least 3 characters), found outside
    groups and classes; None when unsure (alternation, inline flags)."""
    if "|" in pattern or "(?" in pattern:
        return None
    best, run, depth, i = "", "", 0, 0
    while i < len(pattern):
        c, nxt = pattern[i], pattern[i + 1 : i + 2]
        if depth == 0 and c == "\\" and nxt and not nxt.isalnum():
            char, width = nxt, 2
        elif depth == 0 and c not in _META:
            char, width = c, 1
        else:
            depth += (c == "(") - (c == ")")
            counted = _COUNTED.match(pattern, i) if c == "{" else None
            if counted is not None:
                i = counted.end()
            else:
                i = _skip_class(pattern, i) if c == "[" else i + (2 if c == "\\" else 1)
            best, run = max(best, run, key=len), ""
            continue
        follower = pattern[i + width : i + width + 1]
        if follower in ("?", "*", "{"):
            best, run = max(best, run, key=len), ""
        else:
            run += char
            if follower == "+":
                best, run = max(best, run, key=len), ""
        i += width
    best = max(best, run, key=len)
    return best if len(best) >= 3 else None


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` will not be run, or None when it may."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"{TOO_EXPENSIVE}: {len(pattern):,} characters (the limit is {MAX_PATTERN_CHARS})"
    if nested_repetition(pattern):
        return (
            f"{TOO_EXPENSIVE}: a repeated group that itself repeats (like `(a+)+` or "
            "`(.*a){20}`) can take exponential time; use a plain query or a simpler pattern"
        )
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regex: {exc}"
    return None
