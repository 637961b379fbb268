"""Compactor and Extractor: deterministic summaries of the conversation, no model calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.types import CompactionDetails, NormalizedBlock, SessionEntry


@dataclass(frozen=True)
class ExtractorContext:
    code_index: CodeIntelligenceProvider | None
    previous_summary: str | None
    compaction_index: int


class Extractor(Protocol):
    """One summary section: `(blocks, ctx) -> lines`. Pure and deterministic."""

    name: str
    title: str

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]: ...


@dataclass(frozen=True)
class CompactionInput:
    branch: Sequence[SessionEntry]
    context_tokens: int
    context_window: int
    target_tokens: int
    reason: str
    index: int
    force: bool = False
    """Make the entry even when its summary is not smaller than what it folds (an extension
    author looking at a section on a tiny session); `/compact` never forces."""


class Compactor(Protocol):
    name: str

    def should_compact(self, context_tokens: int, context_window: int) -> bool: ...

    def compact(self, data: CompactionInput) -> CompactionDetails | None:
        """Pure: the compaction entry to append, or None when there is nothing to fold."""
        ...


@runtime_checkable
class ObservingCompactor(Compactor, Protocol):
    """A Compactor that prepares per-entry work as entries arrive. The turn loop calls
    `observe` after each turn with the active branch; a compactor without it is simply not
    told. Output must not depend on it: an entry never observed is worked out when needed."""

    def observe(self, branch: Sequence[SessionEntry]) -> None: ...


@runtime_checkable
class ExtensibleCompactor(Compactor, Protocol):
    """A Compactor that takes what extensions registered: extra extractors (sections) and a
    code intelligence provider. The host hands them over once, when the agent is assembled; a
    compactor without `extend` is simply not given them."""

    def extend(
        self, extractors: Sequence[Extractor], code_index: CodeIntelligenceProvider | None
    ) -> None: ...
