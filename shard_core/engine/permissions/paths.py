"""PathTarget: a path argument as the gate judges it — real path, workspace edge, protected dirs.

The real path decides containment (a symlink inside the workspace that points out is outside).
Deny rules are also tried on the path as written, so a deny cannot be dodged through a symlink.
Writes to the protected places (`shard_core.types.protected`: `.git/`, `.shard/`, `.agents/`,
`.mcp.json`, `SHARD.md`, `AGENTS.md`) ask even when a broad rule such as `Edit(**)` matches; only a
rule naming the protected directory or file allows them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from shard_core.types.protected import PROTECTED_DIRS, PROTECTED_FILES, protected_part

__all__ = ["PROTECTED_DIRS", "PROTECTED_FILES", "PathTarget", "resolve_target"]


@dataclass(frozen=True)
class PathTarget:
    """One path a tool call reads or writes, resolved against the workspace (the cwd)."""

    raw: str
    cwd: Path
    resolved: Path
    lexical: Path
    lexical_cwd: Path
    is_dir: bool

    @property
    def inside(self) -> bool:
        return self.resolved.is_relative_to(self.cwd)

    @property
    def rel(self) -> str | None:
        """The real path relative to the cwd, `""` for the cwd itself, None when outside."""
        return _relative(self.resolved, self.cwd)

    @property
    def lexical_rel(self) -> str | None:
        return _relative(self.lexical, self.lexical_cwd)

    @property
    def shown(self) -> str:
        rel = self.rel
        return (rel or ".") if rel is not None else str(self.resolved)

    def protected_dir(self) -> str | None:
        """The protected directory (`.git`, …) this path lies in, or the protected file
        (`.mcp.json`, …) it is, inside the workspace — by its real path or as written."""
        for rel in (self.rel, self.lexical_rel):
            hit = protected_part(rel) if rel else None
            if hit:
                return hit
        return None

    def forms(self, *, as_written: bool) -> list[tuple[str | None, Path]]:
        """(relative, absolute) forms a rule is matched against; deny rules use both."""
        forms = [(self.rel, self.resolved)]
        if as_written and (self.lexical_rel, self.lexical) != forms[0]:
            forms.append((self.lexical_rel, self.lexical))
        return forms


def resolve_target(raw: object, cwd: Path) -> PathTarget:
    """Resolve `raw` (relative to `cwd`, `~` expanded); ValueError when it is no usable path."""
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError("no path given")
    if "\x00" in raw:
        raise ValueError(f"path contains a NUL byte: {raw!r}")
    try:
        os.fsencode(raw)
    except UnicodeEncodeError:
        raise ValueError(f"path is not valid text: {raw!r}") from None
    joined = Path(cwd) / os.path.expanduser(raw)
    resolved = Path(os.path.realpath(joined))
    return PathTarget(
        raw=raw,
        cwd=Path(os.path.realpath(cwd)),
        resolved=resolved,
        lexical=Path(os.path.normpath(joined)),
        lexical_cwd=Path(os.path.normpath(cwd)),
        is_dir=resolved.is_dir(),
    )


def _relative(path: Path, base: Path) -> str | None:
    if path == base:
        return ""
    if path.is_relative_to(base):
        return path.relative_to(base).as_posix()
    return None
