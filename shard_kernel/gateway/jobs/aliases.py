"""Friendly aliases for subagents: "Juniper", "Juniper 2", … unique among one parent's children.

The pool is the agent definition's `names`, else config `subagents.names`, else a bundled
pool. It is pinned into the job when the job is accepted, so editing the config later
never renames an agent. Names compare after NFKC normalisation, trimming and casefolding, so
a full-width "Juniper" and "juniper " are the same name; unusable entries are dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

BUNDLED = (
    "Juniper", "Maple", "Rowan", "Hazel", "Aspen", "Willow", "Cedar", "Laurel",
    "Linden", "Alder", "Birch", "Sorrel", "Tamarind", "Yarrow", "Fennel", "Olive",
)  # fmt: skip
MAX_ALIAS = 40
_MACHINE = re.compile(r"(agent|job|run|task)-[0-9a-z]{4,}", re.IGNORECASE)


def normalize(name: str) -> str:
    """The form names are compared in."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def clean(name: object) -> str | None:
    """`name` as an alias base, or None when it is no usable name."""
    if not isinstance(name, str):
        return None
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text or len(text) > MAX_ALIAS or "/" in text or "\\" in text or "·" in text:
        return None
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
        return None
    if _MACHINE.fullmatch(text):
        return None
    return text


def pool(*sources: Iterable[object]) -> list[str]:
    """The first source with a usable name (its usable names, in order, without repeats),
    else the bundled pool: a definition's names win over the config's, which win over ours."""
    for source in (*sources, BUNDLED):
        found: list[str] = []
        for raw in source:
            name = clean(raw)
            if name is not None and normalize(name) not in {normalize(f) for f in found}:
                found.append(name)
        if found:
            return found
    return list(BUNDLED)


def allocate(names: list[str], taken: Iterable[str]) -> str:
    """The next alias: the base used by the fewest siblings (pool order breaks ties), then
    numbered from 2 ("Juniper 2") when every base is in use."""
    used = {normalize(t) for t in taken}
    counts = [
        sum(1 for t in used if t == normalize(base) or t.startswith(normalize(base) + " "))
        for base in names
    ]
    order = sorted(range(len(names)), key=lambda i: (counts[i], i))
    for i in order:
        base = names[i]
        candidate = base if counts[i] == 0 else f"{base} {counts[i] + 1}"
        n = counts[i] + 1
        while normalize(candidate) in used:
            n += 1
            candidate = f"{base} {n}"
        return candidate
    raise ValueError("no names to choose from")


def display(definition: str | None, alias: str) -> str:
    return f"{definition} · {alias}" if definition else alias
