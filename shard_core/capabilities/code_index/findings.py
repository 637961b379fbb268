"""Finding: one error a language server reported, as the code index keeps and shows it (a leaf:
the server's client and the diagnostics that start it both use it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    severity: str
    message: str
    source: str

    def text(self) -> str:
        message = " ".join(self.message.replace("\xa0", " ").split())
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {message} [{self.source}]"

    @property
    def key(self) -> tuple[str, str]:
        """What identifies an error across edits that move it: its message, not its line."""
        return (self.severity, self.message)
