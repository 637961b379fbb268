"""Excerpts: one-line clips, head + tail cuts of long outputs, and `recall` breadcrumbs.

Every excerpt is redacted inside the window it is cut from, so a secret straddling the cut is
still recognised whole. Nothing here depends on the clock or on set order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from shard_core.engine.compaction.gates import any_of
from shard_core.engine.compaction.redact import HINTS, redact

_MARGIN = 120
"""Extra characters redacted around a cut so a key crossing it is still matched whole."""


def squash(text: str) -> str:
    """All whitespace runs (newlines included) become one space."""
    return " ".join(text.split())


def clip(text: str, limit: int) -> str:
    """One line of at most `limit` characters, redacted; `…` marks a cut."""
    return _clip(text, limit, redact)


def clip_all(texts: Sequence[str], limit: int) -> list[str]:
    """`[clip(text, limit) for text in texts]`, with one search for hints of a secret over
    them all instead of one per text (most hold none, and `redact` returns those as they are)."""
    hinted = any_of(texts, HINTS)
    return [
        _clip(text, limit, redact if hint else _same)
        for text, hint in zip(texts, hinted, strict=True)
    ]


def _same(text: str) -> str:
    return text


def _clip(text: str, limit: int, redactor: Callable[[str], str]) -> str:
    cut = len(text) > limit * 2 + _MARGIN
    flat = squash(redactor(text[: limit * 2 + _MARGIN] if cut else text))
    if len(flat) <= limit and not cut:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"


def head_tail(text: str, head: int, tail: int, crumb: str = "") -> str:
    """One line: the first `head` and last `tail` characters around a marker naming the cut."""
    if len(text) <= head + tail + 40:
        return squash(redact(text))
    start = squash(redact(text[: head + _MARGIN]))[:head].rstrip()
    end = squash(redact(text[-(tail + _MARGIN) :]))[-tail:].lstrip()
    note = f"{len(text) - head - tail:,} chars cut"
    return f"{start} …[{note}{'; ' + crumb if crumb else ''}]… {end}"


def first_line(text: str, limit: int) -> str:
    """The first non-blank line, clipped."""
    for line in text.splitlines():
        if line.strip():
            return clip(line, limit)
    return ""


def crumb(indices: Iterable[int]) -> str:
    """`(recall: expand=[3, 9])` for the given entry indices (sorted, unique)."""
    if isinstance(indices, list) and len(indices) == 1:  # the usual crumb: one entry
        return f"(recall: expand=[{indices[0]!s}])"
    unique = sorted(dict.fromkeys(indices))
    return f"(recall: expand=[{', '.join(str(i) for i in unique)}])" if unique else ""


_CRUMB_OPEN = "(recall: expand=["
_CRUMB = re.compile(r"\(recall: expand=\[([\d, ]*)\]\)\s*$")


def split_crumb(line: str) -> tuple[str, list[int]]:
    """A summary line without its breadcrumb (and the white space before it), and the indices
    the breadcrumb named. Only the last `(recall: expand=[` can open one (what may follow a
    breadcrumb holds no `(`), so that is where it is matched: a pattern searched from the
    start of the line would try every position of it."""
    at = line.rfind(_CRUMB_OPEN)
    found = _CRUMB.match(line, at) if at != -1 else None
    if found is None:
        return line, []
    while at > 0 and line[at - 1].isspace():
        at -= 1
    numbers = [int(n) for n in found.group(1).replace(" ", "").split(",") if n]
    return line[:at], numbers


def with_crumb(text: str, indices: Iterable[int]) -> str:
    mark = crumb(indices)
    return f"{text} {mark}" if mark else text
