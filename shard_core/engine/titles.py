"""Session titles: a deterministic one from the first prompt, the newest title entry wins.

Titles are `TitleCheckpoint`s in the log, so they survive compaction (the log is never
rewritten; compaction only adds a summary) and resume, and a fork inherits its parent's title
through the lineage. No model is called for the default title.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from shard_core.types import CheckpointEntry, SessionEntry, TitleCheckpoint

TitleSource = Literal["prompt", "user", "model"]
TITLE_CHARS = 60
_SPACE = re.compile(r"\s+")
_NOISE = re.compile(r"^[\s>#*`\-]+")  # markdown quote/heading/list marks opening a prompt


def title_from_prompt(prompt: str, limit: int = TITLE_CHARS) -> str | None:
    """The first non-empty line of the prompt, whitespace collapsed, cut at a word boundary
    to at most `limit` characters (with an ellipsis); None for a prompt of only blanks."""
    for line in prompt.splitlines():
        text = _SPACE.sub(" ", _NOISE.sub("", line)).strip()
        if text:
            break
    else:
        return None
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:") + "…"


def clean_title(title: str, limit: int = 120) -> str:
    """A title set by hand: one line, whitespace collapsed, no control characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in title)
    return _SPACE.sub(" ", text).strip()[:limit]


def latest_title(entries: Iterable[SessionEntry]) -> TitleCheckpoint | None:
    found: TitleCheckpoint | None = None
    for entry in entries:
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, TitleCheckpoint):
            found = entry.details
    return found
