"""WriteTool: create or overwrite a whole file atomically, reporting the change as a diff."""

from __future__ import annotations

import asyncio
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.tools.atomic import write_atomic
from shard_core.tools.diffs import diff_texts
from shard_core.tools.encoding import decode_text
from shard_core.tools.guard import check_input, guarded
from shard_core.tools.host_files import editor_text, editor_write
from shard_core.tools.notebook_guard import refuse_notebook
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import DiffDescriptor, RenderDescriptor


class WriteTool:
    name: str = "write"
    description: str = (
        "Write a whole file in the workspace, creating parent directories as needed. Overwrites "
        "an existing file (keeping its permissions); prefer edit for changing part of a file. "
        "The content is written as UTF-8, exactly as given."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the cwd."},
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    read_only: bool = False
    kind: str = "edit"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["write"]

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        target = resolve_in_workspace(input["path"], ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if target.is_dir():
            return ToolResult.error(f"{shown} is a directory", path=shown)
        if refused := refuse_notebook(self.name, input["path"], target, shown):
            return refused
        content: str = input["content"]
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            return ToolResult.error(f"content is not valid Unicode: {exc.reason}", path=shown)
        try:
            if ctx.files is not None:
                return await _write_through_editor(ctx, target, shown, content, data)
            return await asyncio.to_thread(_write, target, shown, content, data)
        except OSError as exc:
            return ToolResult.error(f"cannot write {shown}: {exc.strerror or exc}", path=shown)

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        """The diff this call would make (a new file: all added), nothing written."""
        if check_input(self.input_schema, input) is not None:
            return []
        target = resolve_in_workspace(input["path"], ctx)
        if isinstance(target, ToolResult) or target.is_dir():
            return []
        shown, content = display_path(target, ctx), input["content"]
        if refuse_notebook(self.name, input["path"], target, shown):
            return []
        created, old_text = await asyncio.to_thread(_current, target)
        diff = diff_texts(old_text, content)
        status = "created" if created else "modified"
        return [DiffDescriptor(path=shown, hunks=diff.hunks, status=status)]


def _current(target: Path) -> tuple[bool, str]:
    """Blocking. Whether the file is new, and its text now ("" for a binary file: a binary
    file being overwritten has no meaningful line diff, so it is diffed against nothing)."""
    if not target.exists():
        return True, ""
    decoded = decode_text(target.read_bytes())
    return False, decoded.text if decoded else ""


async def _write_through_editor(
    ctx: ToolContext, target: Path, shown: str, content: str, data: bytes
) -> ToolResult:
    """The editor's buffer is what is overwritten (its text is the diff's old side)."""
    created, old_text = await asyncio.to_thread(_current, target)
    old_text = await editor_text(ctx, target) or old_text
    try:
        written = await editor_write(ctx, target, content)
    except Exception as exc:  # the editor refused the write: nothing changed
        return ToolResult.error(f"cannot write {shown} through the editor: {exc}", path=shown)
    if not written:
        await asyncio.to_thread(write_atomic, target, data)
    return _written(shown, created, old_text, content, data)


def _write(target: Path, shown: str, content: str, data: bytes) -> ToolResult:
    created, old_text = _current(target)
    write_atomic(target, data)
    return _written(shown, created, old_text, content, data)


def _written(shown: str, created: bool, old_text: str, content: str, data: bytes) -> ToolResult:
    diff = diff_texts(old_text, content)
    return ToolResult.ok(
        f"wrote {len(data)} bytes to {shown}" + (" (new file)" if created else ""),
        DiffDescriptor(path=shown, hunks=diff.hunks, status="created" if created else "modified"),
        path=shown,
        bytes=len(data),
        created=created,
        lines_added=diff.added,
        lines_removed=diff.removed,
    )
