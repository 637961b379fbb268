"""counted: a number and its noun in the right form ("1 entry", "2 entries") for every message
Shard prints; nothing here knows what is counted."""

from __future__ import annotations

__all__ = ["counted"]

_IRREGULAR = {"entry": "entries", "match": "matches", "was": "were", "has": "have"}


def counted(n: int, noun: str, plural: str | None = None, *, grouped: bool = False) -> str:
    """`n` and `noun`, plural unless n is 1; `grouped` writes 12,345."""
    number = f"{n:,}" if grouped else str(n)
    if n == 1:
        return f"{number} {noun}"
    return f"{number} {plural or _IRREGULAR.get(noun) or noun + 's'}"
