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
_QUESTION = re.compile(r"\bopen question\b|\?\s*$", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str, test: re.Pattern[str]) -> list[str]:
    found: list[str] = []
    for sentence in _SENTENCE.split(text):
        flat = squash(sentence).lstrip("-*• ")
        if len(flat) >= 12 and test.search(flat):
            found.append(flat)
    return found


def _open_question(text: str) -> str | None:
    """The user's question: an 'open question' sentence (with the one after it, which often
    says how it stands), else the last sentence that ends in '?'."""
    parts = [squash(s) for s in _SENTENCE.split(text) if s.strip()]
    for i, part in enumerate(parts):
        if "open question" in part.lower():
            return " ".join(parts[i : i + 2])
    asked = [p for p in parts if p.endswith("?") and len(p) >= 12]
    return asked[-1] if asked else None


class DecisionsAndQuestions:
    """Decisions (user's or assistant's, newest MAX_DECISIONS) and the user's latest open
    questions (newest MAX_QUESTIONS), oldest first, each with its entry."""

    name = "decisions"
    title = "Decisions And Questions"
    merge = "union"

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        tools = tool_index(blocks, ctx)
        decisions: dict[str, tuple[int, str]] = {}
        questions: dict[str, tuple[int, str]] = {}
        for block in tools.of_kind("user", "assistant"):
            text: str = getattr(block, "text", "")
            lowered = text.lower()
            if any(word in lowered for word in _DECISION_WORDS):
                for sentence in _sentences(text, _DECISION):
                    decisions[sentence.casefold()] = (block.entry_index, sentence)
            if block.kind == "user" and "?" in text:
                asked = _open_question(text)
                if asked is not None:
                    questions[asked.casefold()] = (block.entry_index, asked)
        lines = [
            (at, with_crumb(DECISION_PREFIX + clip(s, SENTENCE_CHARS), [at]))
            for at, s in list(decisions.values())[-MAX_DECISIONS:]
        ]
        lines += [
            (at, with_crumb(QUESTION_PREFIX + clip(s, SENTENCE_CHARS), [at]))
            for at, s in list(questions.values())[-MAX_QUESTIONS:]
        ]
        return [line for _, line in sorted(lines, key=lambda x: x[0])]
