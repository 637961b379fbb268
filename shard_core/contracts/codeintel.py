"""CodeIntelligenceProvider: optional outlines and signatures (tree-sitter, LSP)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DIAGNOSTICS_HEADING = "Language server errors after this change"
"""The first line of the block a DiagnosingProvider's lines are added under in a tool result;
compaction's Outstanding Context recognises it."""


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
    """Code intelligence that also checks changed files (a language server). The loop awaits
    `diagnose` after a tool changed files and adds its lines to that tool's result."""

    async def diagnose(self, paths: Sequence[str]) -> list[str]:
        """The block to add to the result: DIAGNOSTICS_HEADING, then one
        `path:line:col: error: message` line per error this change introduced; empty when it
        introduced none (or no server could tell)."""
        ...
