"""What the user wants: Session Goal (first substantive turns + latest change of scope) and User
Preferences (explicit "always / never / prefer / don't / please use …" statements)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.excerpts import clip, squash, with_crumb
from shard_core.types import NormalizedBlock, UserBlock

SCOPE_PREFIX = "scope change: "
_NOISE = re.compile(
    r"^(?:ok(?:ay)?|yes|yep|yeah|no|nope|sure|go(?: on| ahead)?|continue|proceed|next|thanks?"
    r"(?: you)?|thx|ty|lgtm|done|y|n|k|hi|hello|hey|do it|please do|sounds good)\W*$",
    re.IGNORECASE,
)
_SCOPE = re.compile(
    r"\b(?:instead|change of plans?|forget (?:that|it|about)|scratch that|new task|switch(?:ing)?"
    r" to|pivot|different approach|never ?mind|actually,? (?:let'?s|we|i want|please)"
    r"|now (?:let'?s|i want|we need|please|implement|add)|next,? (?:let'?s|please|implement|add)"
    r"|also (?:add|implement|handle|support|make))\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"^(?:please\s+)?(?:always|never|don'?t|do not|avoid|prefer|make sure|be sure to|only use"
    r"|stop)\b"
    r"|\b(?:i|we)(?:'d| would)?\s+(?:prefer|rather|like you to|want you to|don'?t want)\b"
    r"|\b(?:from now on|going forward|in the future|by default)\b"
    r"|\bplease\s+(?:use|avoid|keep|write|run|add|follow|stick|prefer)\b"
    r"|\buse\s+\S+\s+instead of\b",
    re.IGNORECASE,
)
_HINT = re.compile(
    r"always|never|don'?t|do not|avoid|prefer|make sure|be sure|only use|stop|rather|want you"
    r"|from now on|going forward|in the future|by default|instead of"
    r"|please\s+(?:use|avoid|keep|write|run|add|follow|stick|prefer|always|never|don|do not)",
    re.IGNORECASE,
)
"""Words every preference pattern contains: a cheap test before splitting into sentences."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
GOAL_CHARS = 300
SHORT_GOAL = 60
PREFERENCE_CHARS = 200
MAX_PREFERENCES = 12


def is_substantive(text: str) -> bool:
    flat = squash(text)
    return len(flat) >= 8 and not _NOISE.match(flat)


class SessionGoal:
    """The first substantive user turns, and the latest user turn that changed the scope."""

    name = "goal"
    title = "Session Goal"
    merge = "sticky-goal"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        users = [b for b in blocks if b.kind == "user"]
        goals: list[UserBlock] = []
        if ctx.previous_summary is None:  # otherwise the previous summary states the goal
            for block in users:
                if len(goals) == 2 or (goals and len(squash(goals[0].text)) >= SHORT_GOAL):
                    break
                if is_substantive(block.text):
                    goals.append(block)
        lines = [with_crumb(clip(b.text, GOAL_CHARS), [b.entry_index]) for b in goals]
        after = users.index(goals[-1]) + 1 if goals else 0
        for block in reversed(users[after:]):
            if _SCOPE.search(block.text) and is_substantive(block.text):
                text = SCOPE_PREFIX + clip(block.text, GOAL_CHARS)
                lines.append(with_crumb(text, [block.entry_index]))
                break
        return lines


def preference_sentences(text: str) -> list[str]:
    found: list[str] = []
    if not _HINT.search(text):
        return found  # most turns state no preference: skip the per-sentence work
    for sentence in _SENTENCE.split(text):
        flat = squash(sentence).lstrip("-*• ")
        if len(flat) >= 8 and _PREFERENCE.search(flat):
            found.append(clip(flat, PREFERENCE_CHARS))
    return found


class UserPreferences:
    """Explicit standing instructions from the user, deduplicated, oldest first."""

    name = "preferences"
    title = "User Preferences"
    merge = "union"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        seen: dict[str, str] = {}
        for block in blocks:
            if block.kind == "user":
                for sentence in preference_sentences(block.text):
                    seen.setdefault(sentence.casefold(), sentence)
        return list(seen.values())[-MAX_PREFERENCES:]
