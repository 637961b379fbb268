"""Path containment: resolve a path argument; refuse anything outside the workspace roots."""

from __future__ import annotations

import os
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.types import ToolResult


def resolve_in_workspace(raw: str, ctx: ToolContext) -> Path | ToolResult:
    """The real path `raw` names, or an error result when it lies outside every root.

    realpath follows every symlink that exists and keeps a missing tail as written, so a file
    that does not exist yet is judged by where its parent chain really is.
    """
    if not raw.strip():
        return ToolResult.error("path must not be empty")
    try:
        os.fsencode(raw)
    except UnicodeEncodeError:
        return ToolResult.error(f"path is not valid text: {raw!r}")
    if "\x00" in raw:
        return ToolResult.error(f"path contains a NUL byte: {raw!r}")
    # A leading ~ is expanded so it is judged (and usually refused) as the home directory it
    # means, instead of silently creating a directory literally named "~".
    resolved = Path(os.path.realpath(Path(ctx.cwd) / os.path.expanduser(raw)))
    if _root_of(resolved, ctx) is None:
        return ToolResult.error(
            f"path escapes the workspace: {resolved} (resolved from {raw!r})",
            path=str(resolved),
        )
    return resolved


def workspace_root(path: Path, ctx: ToolContext) -> Path:
    """The root that contains an already-resolved `path` (the path itself if none does)."""
    return _root_of(path, ctx) or path


def display_path(path: Path, ctx: ToolContext) -> str:
    """How a resolved path is shown: relative to the agent's cwd when below it."""
    cwd = Path(os.path.realpath(ctx.cwd))
    if path == cwd:
        return "."
    if path.is_relative_to(cwd):
        return path.relative_to(cwd).as_posix()
    return str(path)


def _root_of(path: Path, ctx: ToolContext) -> Path | None:
    # Longest match first, so nested roots attribute a path to the innermost one.
    roots = sorted((Path(os.path.realpath(r)) for r in ctx.roots), key=lambda p: -len(p.parts))
    return next((root for root in roots if path.is_relative_to(root)), None)
