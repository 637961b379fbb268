"""CodeIntelligenceProvider: optional outlines and signatures (tree-sitter, LSP)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DIAGNOSTICS_HEADING = "Language server errors after this change"
"""The first line of the block a DiagnosingProvider's lines come under (injected context after
the change; a tool result in older sessions); compaction's Outstanding Context recognises it."""


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str
    path: str
    line: int
    signature: str


class CodeIntelligenceProvider(Protocol):
    name: str

    def outline(self, path: str) -> list[Symbol]: ...

    def symbol(self, name: str) -> list[Symbol]: ...

    def signatures(self, path: str) -> list[str]: ...

    def invalidate(self, path: str) -> None: ...


@runtime_checkable
class DiagnosingProvider(CodeIntelligenceProvider, Protocol):
    """Code intelligence that also checks changed files (a language server). After a tool
    changed files the code index's `tool_returned` handler asks `diagnose` beside the turn
    (the tool's result does not wait) and injects its lines as context for the next request."""

    async def diagnose(self, paths: Sequence[str]) -> list[str]:
        """The block to inject: DIAGNOSTICS_HEADING, then one
        `path:line:col: error: message` line per error this change introduced; empty when it
        introduced none (or no server could tell)."""
        ...


@runtime_checkable
class WarmingProvider(CodeIntelligenceProvider, Protocol):
    """Code intelligence with something slow to start (a language server): the session calls
    `warm` beside its first turn, so the first change does not find it cold."""

    async def warm(self) -> None: ...
