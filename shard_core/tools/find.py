"""FindTool: files whose path matches a glob, gitignore-aware, sorted and capped."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.tools.globs import glob_regex
from shard_core.tools.guard import guarded
from shard_core.tools.ignore import walk_files
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace, workspace_root
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import TreeDescriptor, TreeNode

DEFAULT_MAX_RESULTS = 500


class FindTool:
    name: str = "find"
    description: str = (
        "Find files by glob below a directory in the workspace: `*` within one path segment, "
        "`**` across segments, `?`, `[abc]`, `{py,pyi}`. A pattern without a slash matches file "
        "names at any depth ('*.py'); with a slash it is relative to path ('src/**/*.ts'). "
        ".gitignore'd files and .git/ are skipped; dotfiles are included. Returns sorted paths, "
        f"at most max_results (default {DEFAULT_MAX_RESULTS})."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Glob, e.g. **/*.py"},
            "path": {"type": "string", "description": "Directory to search (default: cwd)."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 5000},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only: bool = True
    kind: str = "search"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["find"]

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        pattern: str = input["pattern"]
        target = resolve_in_workspace(input.get("path", "."), ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if not target.is_dir():
            what = "is not a directory" if target.exists() else "does not exist"
            return ToolResult.error(f"{shown} {what}", path=shown)
        root = workspace_root(target, ctx)
        hits = await asyncio.to_thread(_matching, target, root, glob_regex(pattern))
        limit = int(input.get("max_results", DEFAULT_MAX_RESULTS))
        facts: JsonObject = {"path": shown, "pattern": pattern, "total": len(hits)}
        if not hits:
            return ToolResult.ok(
                f"no files match {pattern!r} in {shown}", shown=0, truncated=False, **facts
            )
        kept = hits[:limit]
        text = "\n".join(display_path(target / hit, ctx) for hit in kept)
        if len(hits) > limit:
            text += f"\n\n[{len(hits) - limit} more files not shown; narrow the pattern or path]"
        return ToolResult.ok(
            text,
            TreeDescriptor(root=_tree(shown, kept)),
            shown=len(kept),
            truncated=len(hits) > limit,
            **facts,
        )


def _matching(target: Path, root: Path, regex: re.Pattern[str]) -> list[str]:
    """Relative posix paths of the matching files below `target`, sorted."""
    relative = (entry.path.relative_to(target).as_posix() for entry in walk_files(target, root))
    return sorted(path for path in relative if regex.match(path))


def _tree(label: str, paths: list[str]) -> TreeNode:
    """Files as a tree under `label`; the paths arrive sorted, so siblings are sorted too."""
    root = TreeNode(label=label, is_dir=True)
    nodes: dict[tuple[str, ...], TreeNode] = {(): root}
    for path in paths:
        parts = tuple(path.split("/"))
        for depth in range(1, len(parts) + 1):
            key = parts[:depth]
            if key not in nodes:
                node = TreeNode(label=parts[depth - 1], is_dir=depth < len(parts))
                nodes[key[:-1]].children.append(node)
                nodes[key] = node
    return root
