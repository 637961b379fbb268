"""CodeIntelligenceProvider: optional outlines and signatures (tree-sitter, LSP)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


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
