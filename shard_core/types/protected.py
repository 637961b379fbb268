"""Protected workspace paths: what the person's own tools later run or trust, one list for all.

A model allowed to write the workspace could otherwise plant code that runs outside any sandbox
the next time a person works there: a git hook or `.git/config` program, Shard's own rules and
extensions (`.shard/`), a project MCP server (`.mcp.json`), a skill (`.agents/`), or context
the next trusted run takes as the person's instructions (`SHARD.md`, `AGENTS.md`). The
permission gate asks before any tool writes one of these, whatever broad rule (`Write(**)`)
matches; only a rule naming the place allows it. The OS sandbox can bind the same list
read-only (`SANDBOX_READ_ONLY`). Pure: no I/O; L0 so the gate and the tools share it.
"""

from __future__ import annotations

__all__ = [
    "PROTECTED_DIRS",
    "PROTECTED_FILES",
    "SANDBOX_READ_ONLY",
    "protected_part",
]

PROTECTED_DIRS = (".git", ".shard", ".agents")
"""Directories protected wherever they appear in a workspace path (`sub/.git/…` too)."""

PROTECTED_FILES = (".mcp.json", "SHARD.md", "AGENTS.md")
"""File names protected in every folder of the workspace (a later run's cwd may be any of them:
context files are read from the git root down to the cwd, `.mcp.json` in the cwd)."""

SANDBOX_READ_ONLY = (
    ".git/hooks",
    ".git/config",
    ".git/info",
    *PROTECTED_DIRS[1:],
    *PROTECTED_FILES,
)
"""The same places for a sandbox that must leave the rest of `.git` writable for git itself."""

_DIRS = {name.casefold() for name in PROTECTED_DIRS}
_FILES = {name.casefold() for name in PROTECTED_FILES}


def protected_part(rel: str) -> str | None:
    """The protected directory or file `rel` (a workspace-relative POSIX path) lies in or is,
    as the list spells it; None when it is none. Compared case-insensitively: on a
    case-insensitive file system `.GIT/hooks` is `.git/hooks`."""
    parts = [p for p in rel.split("/") if p]
    for part in parts[:-1]:
        if part.casefold() in _DIRS:
            return _spelled(part, PROTECTED_DIRS)
    if parts:
        last = parts[-1].casefold()
        if last in _DIRS:
            return _spelled(last, PROTECTED_DIRS)
        if last in _FILES:
            return _spelled(last, PROTECTED_FILES)
    return None


def _spelled(part: str, names: tuple[str, ...]) -> str:
    return next(n for n in names if n.casefold() == part.casefold())
