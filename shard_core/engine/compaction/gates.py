"""Gates: which of many texts may hold any of some words, in one search over them all.

An extractor that reads every user turn or every command tests each text for a few words first
and skips the slow work for the rest. Over a long session that test, repeated per text, was most
of the extractor's time; searching the texts joined is the same test for each at the cost of a
few `str.find` calls in all. A word cannot match across two texts: they are joined by a NUL,
which neither the words nor the patterns given here contain or match. A `Haystack` keeps the
joined text, so several extractors gating the same texts (the user turns, the bash commands)
join and lower them once (context.py's BlockIndex hands one out per kind of text).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

_SEP = "\0"


class Haystack:
    """Texts joined by NUL (lowered, unless `lower` is false), searched by any number of gates."""

    def __init__(self, texts: Sequence[str], *, lower: bool = True) -> None:
        self.texts = texts
        self.ascii = all(map(str.isascii, texts))
        self._pieces: Sequence[str] | None = None
        if lower and self.ascii:  # lowering ASCII keeps every length: lower the join at once
            pieces, self.joined = texts, _SEP.join(texts).lower()
        else:
            pieces = self._pieces = [text.lower() for text in texts] if lower else texts
            self.joined = _SEP.join(pieces)
        starts: list[int] = []
        at = 0
        for length in map(len, pieces):
            starts.append(at)
            at += length + 1
        self._starts = starts

    def text(self, i: int) -> str:
        """Text i as searched (lowered, unless `lower` was false)."""
        if self._pieces is not None:
            return self._pieces[i]
        start = self._starts[i]
        return self.joined[start : start + len(self.texts[i])]

    def any_of(self, words: Iterable[str], patterns: Iterable[re.Pattern[str]] = ()) -> list[bool]:
        """Per text: does it (lowered) contain one of `words` or match one of `patterns`?"""
        joined, starts = self.joined, self._starts
        found = [False] * len(starts)
        for word in words:
            at = joined.find(word)
            while at != -1:
                i = bisect_right(starts, at) - 1
                found[i] = True
                following = starts[i + 1] if i + 1 < len(starts) else len(joined)
                at = joined.find(word, following)
        for pattern in patterns:
            for match in pattern.finditer(joined):
                found[bisect_right(starts, match.start()) - 1] = True
        return found


def any_of(
    texts: Sequence[str],
    words: Iterable[str],
    patterns: Iterable[re.Pattern[str]] = (),
    *,
    lower: bool = True,
) -> list[bool]:
    """Per text: does `text.lower()` (`text`, when not `lower`) contain one of `words` or match
    one of `patterns`? The same answers as testing each text alone, for patterns that cannot
    match a NUL."""
    return Haystack(texts, lower=lower).any_of(words, patterns)
