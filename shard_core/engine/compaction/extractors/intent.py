"""What the user wants: Session Goal (first substantive turns + latest change of scope) and User
Preferences (explicit "always / never / prefer / don't / please use …" statements)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import BlockIndex, Facts, facts_of, tool_index
from shard_core.engine.compaction.excerpts import clip, squash, with_crumb
from shard_core.engine.compaction.gates import Haystack
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
    r"|also (?:add|implement|handle|support|make)"
    r"|new requirements?|requirements? (?:changed|have changed)|out of scope|scope change"
    r"|no longer (?:need|want|support))\b",
    re.IGNORECASE,
)
_EXPLICIT = re.compile(
    r"\b(?:change of plans?|new task|scratch that|pivot|different approach|new requirements?"
    r"|requirements? (?:changed|have changed)|out of scope|scope change)\b",
    re.IGNORECASE,
)
"""The phrases that say the scope changed in so many words ("now let's add" may be the next
step of the same plan): the latest of these wins over a later implicit one."""
_SCOPE_WORDS = (
    "instead", "change of plan", "forget", "scratch that", "new task", "switch", "pivot",
    "different approach", "never", "actually", "now", "next", "also", "requirement", "scope",
    "no longer",
)  # fmt: skip
"""Substrings every scope-change phrase contains (see _maybe_scope)."""
_PREFERENCE = re.compile(
    r"^(?:please\s+)?(?:always|never|don'?t|do not|avoid|prefer|make sure|be sure to|only use"
    r"|stop)\b"
    r"|\b(?:i|we)(?:'d| would)?\s+(?:prefer|rather|like you to|want you to|don'?t want)\b"
    r"|\b(?:from now on|going forward|in the future|by default)\b"
    r"|\bplease\s+(?:use|avoid|keep|write|run|add|follow|stick|prefer)\b"
    r"|\buse\s+\S+\s+instead of\b",
    re.IGNORECASE,
)
_HINTS = (
    "always", "never", "don", "do not", "avoid", "prefer", "make sure", "be sure", "only use",
    "stop", "rather", "want you", "like you to", "from now on", "going forward", "in the future",
    "by default", "instead of",
)  # fmt: skip
_PLEASE = re.compile(r"please\s+(?:use|avoid|keep|write|run|add|follow|stick|prefer)")
"""Words every preference pattern contains: a cheap test (substrings of the casefolded text, no
case-insensitive regex scan) before splitting into sentences. A superset is harmless."""
_HINT = re.compile("|".join([*(re.escape(h) for h in _HINTS), _PLEASE.pattern]), re.IGNORECASE)
"""The same test for non-ASCII text, where IGNORECASE also folds a few non-ASCII letters onto
ASCII ones (which casefold() does not)."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
GOAL_CHARS = 300
SHORT_GOAL = 60
PREFERENCE_CHARS = 200
MAX_PREFERENCES = 12


def _maybe_scope(text: str) -> bool:
    """A cheap superset test before the case-insensitive _SCOPE scan, which tries every
    position of the text (non-ASCII text goes straight to the scan)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(word in lowered for word in _SCOPE_WORDS)


def _maybe_preference(text: str) -> bool:
    if not text.isascii():
        return _HINT.search(text) is not None
    lowered = text.lower()
    return any(h in lowered for h in _HINTS) or _PLEASE.search(lowered) is not None


def _gated(
    texts: Haystack,
    words: Sequence[str],
    patterns: Sequence[re.Pattern[str]],
    one: Callable[[str], bool],
) -> list[bool]:
    """`[one(text) for text in texts]` for a gate `one` that tests ASCII text for `words` and
    `patterns` (lowercased) and other text its own way: the ASCII ones in one search."""
    found = texts.any_of(words, patterns)
    if not texts.ascii:
        for i, text in enumerate(texts.texts):
            if not text.isascii():
                found[i] = one(text)
    return found


def _maybe(
    tools: BlockIndex,
    facts: Facts,
    words: Sequence[str],
    patterns: Sequence[re.Pattern[str]],
    one: Callable[[str], bool],
) -> list[bool]:
    """Which user turns may hold one of `words` or `patterns` (`_gated`): every one when the
    facts memo remembers — what `observe` worked out per turn is cheaper to look up than the
    gate over all the texts, and the facts behind both apply the same test first."""
    if facts.remembers:
        return [True] * len(tools.users())
    return _gated(tools.user_texts(), words, patterns, one)


def is_substantive(text: str) -> bool:
    flat = squash(text)
    return len(flat) >= 8 and not _NOISE.match(flat)


def _states_goal(summary: str | None, title: str) -> bool:
    """Does a previous summary carry a goal (not only a change of scope)? When the first
    compaction folded no substantive user turn, the next one still has to find the goal."""
    if summary is None:
        return False
    head = f"## {title}\n"
    at = summary.find(head)
    while at > 0 and summary[at - 1] != "\n":
        at = summary.find(head, at + 1)
    if at == -1:
        return False
    for line in summary[at + len(head) :].splitlines():
        if not line.startswith("- "):
            break
        if not line[2:].startswith(SCOPE_PREFIX):
            return True
    return False


class SessionGoal:
    """The first substantive user turns, and the latest user turn that changed the scope (the
    latest that says so in so many words, else the latest that implies it)."""

    name = "goal"
    title = "Session Goal"
    merge = "sticky-goal"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        users = tools.users()
        goals: list[UserBlock] = []
        if not _states_goal(ctx.previous_summary, self.title):  # else it is sticky there
            for block in users:
                if len(goals) == 2 or (goals and len(squash(goals[0].text)) >= SHORT_GOAL):
                    break
                if is_substantive(block.text):
                    goals.append(block)
        lines = [with_crumb(clip(b.text, GOAL_CHARS), [b.entry_index]) for b in goals]
        after = users.index(goals[-1]) + 1 if goals else 0
        facts = facts_of(ctx)
        later = users[after:]
        maybe = _maybe(tools, facts, _SCOPE_WORDS, (), _maybe_scope)[after:]
        scope: UserBlock | None = None
        for block, hinted in zip(reversed(later), reversed(maybe), strict=True):
            if hinted and facts.of(changes_scope, block, None):
                scope = scope or block
                if _EXPLICIT.search(block.text):
                    scope = block
                    break
        if scope is not None:
            text = SCOPE_PREFIX + clip(scope.text, GOAL_CHARS)
            lines.append(with_crumb(text, [scope.entry_index]))
        return lines


def changes_scope(block: UserBlock, _: None) -> bool:
    text = block.text
    return _maybe_scope(text) and _SCOPE.search(text) is not None and is_substantive(text)


def block_preferences(block: UserBlock, _: None) -> list[str]:
    return preference_sentences(block.text)


def preference_sentences(text: str) -> list[str]:
    found: list[str] = []
    if not _maybe_preference(text):
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
        facts = facts_of(ctx)
        tools = tool_index(blocks, ctx)
        users = tools.users()
        maybe = _maybe(tools, facts, _HINTS, (_PLEASE,), _maybe_preference)
        for block, hinted in zip(users, maybe, strict=True):
            if not hinted:
                continue  # states no preference: what block_preferences would find too
            for sentence in facts.of(block_preferences, block, None):
                seen.setdefault(sentence.casefold(), sentence)
        return list(seen.values())[-MAX_PREFERENCES:]
