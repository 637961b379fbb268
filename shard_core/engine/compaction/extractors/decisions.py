"""Decisions And Questions: the design choices said in the conversation and the questions the
user left open. Both shape later work and neither shows in the tools' traces: without them a
compacted agent re-opens a settled choice or answers a question nobody answered."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.context import tool_index
from shard_core.engine.compaction.excerpts import clip, squash, with_crumb
from shard_core.types import NormalizedBlock

DECISION_PREFIX = "decision: "
QUESTION_PREFIX = "user asked: "
SENTENCE_CHARS = 200
MAX_DECISIONS = 6
MAX_QUESTIONS = 3

_DECISION_WORDS = ("decision", "decided", "decide to", "we will", "we'll", "going with",
                   "chose ", "settled on", "agreed")  # fmt: skip
"""Substrings every decision pattern contains: a cheap gate before the regex."""
_DECISION = re.compile(
    r"\b(?:decision:|(?:we|i)(?: have)? decided|decided to|we(?: will|'ll) (?:keep|use|go with|"
    r"stick with|not)|(?:we're |i'm |i am )?going with|(?:we|i) chose|settled on|agreed to)\b",
    re.IGNORECASE,
)
_OPEN = ("open question", "still open", "undecided", "not decided", "decide later",
         "decide after", "leave it open", "leave this open", "tbd")  # fmt: skip
"""Words that say a question is left open (lowercase): such a question outranks one that only
ends in '?' ("can you fix the parser?" is a request the next turns answer)."""
PLAIN_QUESTIONS = 1
"""Of the MAX_QUESTIONS, how many may be plain '?' questions (the newest) when questions said
to be open are there too."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str, test: re.Pattern[str]) -> list[str]:
    found: list[str] = []
    for sentence in _SENTENCE.split(text):
        flat = squash(sentence).lstrip("-*• ")
        if len(flat) >= 12 and test.search(flat):
            found.append(flat)
    return found


def _open_question(text: str) -> tuple[str, bool] | None:
    """The user's question and whether it is said to be open: a sentence with one of _OPEN's
    words (with the one after it, which often says how it stands), else the last sentence that
    ends in '?'."""
    parts = [squash(s) for s in _SENTENCE.split(text) if s.strip()]
    for i, part in enumerate(parts):
        lowered = part.lower()
        if any(word in lowered for word in _OPEN):
            return " ".join(parts[i : i + 2]), True
    asked = [p for p in parts if p.endswith("?") and len(p) >= 12]
    return (asked[-1], False) if asked else None


def _newest_questions(questions: dict[str, tuple[int, str, bool]]) -> list[tuple[int, str]]:
    """The newest MAX_QUESTIONS, those said to be open first, then plain ones (at most
    PLAIN_QUESTIONS of them while open ones are there)."""
    said = [(at, s) for at, s, is_open in questions.values() if is_open]
    plain = [(at, s) for at, s, is_open in questions.values() if not is_open]
    if not said:
        return plain[-MAX_QUESTIONS:]
    newest = plain[-PLAIN_QUESTIONS:] if PLAIN_QUESTIONS else []
    return said[-(MAX_QUESTIONS - len(newest)) :] + newest


class DecisionsAndQuestions:
    """Decisions (user's or assistant's, newest MAX_DECISIONS) and the user's latest open
    questions (newest MAX_QUESTIONS, those said to be open first), oldest first, each with
    its entry."""

    name = "decisions"
    title = "Decisions And Questions"
    merge = "union"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        decisions: dict[str, tuple[int, str]] = {}
        questions: dict[str, tuple[int, str, bool]] = {}
        for block in tools.of_kind("user", "assistant"):
            text: str = getattr(block, "text", "")
            lowered = text.lower()
            if any(word in lowered for word in _DECISION_WORDS):
                for sentence in _sentences(text, _DECISION):
                    decisions[sentence.casefold()] = (block.entry_index, sentence)
            if block.kind == "user" and "?" in text:
                asked = _open_question(text)
                if asked is not None:
                    questions[asked[0].casefold()] = (block.entry_index, *asked)
        lines = [
            (at, with_crumb(DECISION_PREFIX + clip(s, SENTENCE_CHARS), [at]))
            for at, s in list(decisions.values())[-MAX_DECISIONS:]
        ]
        lines += [
            (at, with_crumb(QUESTION_PREFIX + clip(s, SENTENCE_CHARS), [at]))
            for at, s in _newest_questions(questions)
        ]
        return [line for _, line in sorted(lines, key=lambda x: x[0])]
