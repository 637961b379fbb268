"""UsageMeter: usage per request, per turn and per session, and the context-use estimate."""

from __future__ import annotations

from dataclasses import dataclass, field

from shard_core.types import Usage

CHARS_PER_TOKEN = 4  # a cheap estimate for text appended since the last reported request


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class UsageMeter:
    context_window: int
    total: Usage = field(default_factory=Usage)
    turn: Usage = field(default_factory=Usage)
    context_tokens: int = 0

    def start_turn(self) -> None:
        self.turn = Usage()

    def record(self, usage: Usage) -> None:
        """A provider reported usage: its context size replaces the running estimate."""
        self.turn = self.turn + usage
        self.total = self.total + usage
        self.context_tokens = usage.context_tokens + usage.output_tokens

    def grow(self, text: str) -> None:
        self.context_tokens += estimate_tokens(text)

    @property
    def fraction(self) -> float:
        return self.context_tokens / self.context_window if self.context_window else 0.0
