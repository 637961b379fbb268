"""LsTool: a directory as a tree, a few levels deep, directories first, gitignore-aware."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.tools.guard import guarded
from shard_core.tools.ignore import Entry, IgnoreRules, scan
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace, workspace_root
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import TreeDescriptor, TreeNode

DEFAULT_DEPTH = 2
MAX_DEPTH = 5
MAX_ENTRIES = 1000


class LsTool:
    name: str = "ls"
    description: str = (
        f"List a directory in the workspace as an indented tree, {DEFAULT_DEPTH} levels deep by "
        f"default (depth up to {MAX_DEPTH}); directories first and marked with a trailing /. "
        "Skips .git and .gitignore'd entries; dotfiles only with all=true. Shows at most "
        f"{MAX_ENTRIES} entries."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Directory (default: the cwd)."},
            "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH},
            "all": {"type": "boolean", "description": "Include dotfiles."},
        },
        "additionalProperties": False,
    }
    read_only: bool = True
    kind: str = "search"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["ls"]

    def __init__(self, *, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(input.get("path", "."), ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if not target.is_dir():
            what = "is a file; use read" if target.exists() else "does not exist"
            return ToolResult.error(f"{shown} {what}", path=shown)
        lister = _Lister(
            int(input.get("depth", DEFAULT_DEPTH)), bool(input.get("all", False)), self.max_entries
        )
        root = TreeNode(label=shown, is_dir=True)
        rules = IgnoreRules.for_directory(target, workspace_root(target, ctx))
        await asyncio.to_thread(lister.visit, target, rules, root, 1)
        text = "\n".join([f"{shown}/", *lister.lines]) if lister.lines else f"{shown}/ (empty)"
        hidden = lister.total - len(lister.lines)
        if hidden:
            text += f"\n\n[{hidden} more entries not shown; list a subdirectory or lower depth]"
        return ToolResult.ok(
            text,
            TreeDescriptor(root=root),
            path=shown,
            entries=lister.total,
            shown=len(lister.lines),
            truncated=hidden > 0,
        )


@dataclass
class _Lister:
    depth: int
    hidden: bool
    cap: int
    lines: list[str] = field(default_factory=list[str])
    total: int = 0

    def visit(self, directory: Path, rules: IgnoreRules, node: TreeNode, level: int) -> None:
        """Append `directory`'s entries under `node`, recursing while `level` < depth.

        Entries past the cap are still counted (the walk is bounded by depth) so the marker can
        say how many the model did not see.
        """
        for entry in scan(directory, rules, hidden=self.hidden):
            self.total += 1
            label = _label(entry)
            child = TreeNode(label=label.removesuffix("/"), is_dir=entry.is_dir)
            if len(self.lines) < self.cap:
                self.lines.append("  " * level + label)
                node.children.append(child)
            if entry.is_dir and level < self.depth:
                self.visit(entry.path, rules.entering(entry.path), child, level + 1)


def _label(entry: Entry) -> str:
    if entry.is_symlink:
        try:
            return f"{entry.name} -> {os.readlink(entry.path)}"
        except OSError:
            return entry.name
    return f"{entry.name}/" if entry.is_dir else entry.name
