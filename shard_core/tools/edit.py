"""EditTool: exact-string replacements in one file, all or nothing, keeping encoding and EOLs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.engine.plurals import counted
from shard_core.tools.atomic import write_atomic
from shard_core.tools.diffs import diff_texts
from shard_core.tools.encoding import DecodedText, decode_text
from shard_core.tools.guard import check_input, guarded
from shard_core.tools.host_files import editor_text, editor_write
from shard_core.tools.notebook_guard import refuse_notebook
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import DiffDescriptor, RenderDescriptor

_EDIT_FIELDS: JsonObject = {
    "old_string": {"type": "string", "description": "Exact text to replace."},
    "new_string": {"type": "string", "description": "Replacement text."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence."},
}


@dataclass(frozen=True)
class Edit:
    old: str
    new: str
    replace_all: bool = False


class EditTool:
    name: str = "edit"
    description: str = (
        "Replace exact text in an existing file. Each old_string must match the file exactly, "
        "whitespace included, and occur once unless replace_all is true. Several edits apply "
        "in order, all or nothing. Keeps the file's encoding and line endings (in a CRLF file "
        "write plain \\n). Read the file first. Give `edits`, or one old_string/new_string."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the cwd."},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": _EDIT_FIELDS,
                    "required": ["old_string", "new_string"],
                    "additionalProperties": False,
                },
            },
            **_EDIT_FIELDS,
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    read_only: bool = False
    kind: str = "edit"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["edit"]

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        edits = _collect_edits(input)
        if isinstance(edits, str):
            return ToolResult.error(f"invalid edit input: {edits}")
        target = resolve_in_workspace(input["path"], ctx)
        if isinstance(target, ToolResult):
            return target
        shown = display_path(target, ctx)
        if refused := refuse_notebook(self.name, input["path"], target, shown):
            return refused
        editor = await editor_text(ctx, target)
        if editor is None:
            return await asyncio.to_thread(_edit_file, target, shown, edits)
        change = _plan_text(DecodedText(editor, "utf-8"), shown, edits)
        if isinstance(change, ToolResult):
            return change
        try:
            if not await editor_write(ctx, target, change.new):
                await asyncio.to_thread(write_atomic, target, change.data)
        except Exception as exc:  # the editor refused the write: nothing changed
            return ToolResult.error(f"cannot write {shown} through the editor: {exc}", path=shown)
        return _edited(shown, change)

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        """The diff this call would make, nothing written; [] for a call that would fail
        (the tool reports why when it runs)."""
        if check_input(self.input_schema, input) is not None:
            return []
        edits = _collect_edits(input)
        target = resolve_in_workspace(input["path"], ctx)
        if isinstance(edits, str) or isinstance(target, ToolResult):
            return []
        shown = display_path(target, ctx)
        if refuse_notebook(self.name, input["path"], target, shown):
            return []
        editor = await editor_text(ctx, target)
        if editor is None:
            change = await asyncio.to_thread(_plan, target, shown, edits)
        else:
            change = _plan_text(DecodedText(editor, "utf-8"), shown, edits)
        if isinstance(change, ToolResult):
            return []
        diff = diff_texts(change.old, change.new)
        return [DiffDescriptor(path=shown, hunks=diff.hunks, status="modified")]


@dataclass(frozen=True)
class _Change:
    old: str
    new: str
    data: bytes
    replacements: int
    encoding: str


def _plan(target: Path, shown: str, edits: list[Edit]) -> _Change | ToolResult:
    """Blocking. The file's text with every edit applied in memory, or why that fails."""
    if not target.is_file():
        what = "is a directory" if target.is_dir() else "does not exist; use write to create it"
        return ToolResult.error(f"{shown} {what}", path=shown)
    decoded = decode_text(target.read_bytes())
    if decoded is None:
        return ToolResult.error(f"{shown} is a binary file; edit works on text", path=shown)
    return _plan_text(decoded, shown, edits)


def _plan_text(decoded: DecodedText, shown: str, edits: list[Edit]) -> _Change | ToolResult:
    """The edits applied to a file's text in memory, or why that fails."""
    applied = _apply(decoded.text, edits, shown)
    if isinstance(applied, str):
        return ToolResult.error(applied, path=shown)
    new_text, replacements = applied
    try:
        data = decoded.encode(new_text)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        return ToolResult.error(
            f"{shown} is {decoded.encoding}; it cannot hold {bad!r}; no changes were made",
            path=shown,
        )
    return _Change(decoded.text, new_text, data, replacements, decoded.encoding)


def _edit_file(target: Path, shown: str, edits: list[Edit]) -> ToolResult:
    """Blocking; run in a thread. Reads, applies every edit in memory, then writes once."""
    change = _plan(target, shown, edits)
    if isinstance(change, ToolResult):
        return change
    write_atomic(target, change.data)
    return _edited(shown, change)


def _edited(shown: str, change: _Change) -> ToolResult:
    diff = diff_texts(change.old, change.new)
    return ToolResult.ok(
        f"edited {shown}: {counted(change.replacements, 'replacement')}, "
        f"+{diff.added} -{diff.removed} lines",
        DiffDescriptor(path=shown, hunks=diff.hunks, status="modified"),
        path=shown,
        replacements=change.replacements,
        lines_added=diff.added,
        lines_removed=diff.removed,
        encoding=change.encoding,
        line_ending="crlf" if _uses_crlf(change.old) else "lf",
    )


def _collect_edits(input: JsonObject) -> list[Edit] | str:
    """The edits asked for, in order, or what is wrong with them."""
    single = [key for key in _EDIT_FIELDS if key in input]
    if "edits" in input and single:
        return f"give either 'edits' or '{single[0]}', not both"
    raw: list[Any] = input.get("edits", [input] if single else [])
    if not raw:
        return "missing 'edits' (or 'old_string' and 'new_string')"
    edits: list[Edit] = []
    for number, item in enumerate(raw, 1):
        label = f"edit {number}: " if "edits" in input else ""
        for key in ("old_string", "new_string"):
            if key not in item:
                return f"{label}missing required field '{key}'"
        edit = Edit(item["old_string"], item["new_string"], bool(item.get("replace_all", False)))
        if not edit.old:
            return f"{label}old_string is empty; use write to create or replace a whole file"
        if edit.old == edit.new:
            return f"{label}old_string and new_string are identical; nothing would change"
        edits.append(edit)
    return edits


def _apply(text: str, edits: list[Edit], shown: str) -> tuple[str, int] | str:
    """`text` with every edit applied in order and the replacement count, or why it failed."""
    eol = "\r\n" if _uses_crlf(text) else "\n"
    replacements = 0
    for number, edit in enumerate(edits, 1):
        label = f"edit {number} of {len(edits)}: " if len(edits) > 1 else ""
        old, new = _with_eol(edit.old, eol), _with_eol(edit.new, eol)
        count = text.count(old)
        if count == 0:
            hint = _near_miss(text, old)
            return f"{label}old_string not found in {shown}{hint}; no changes were made"
        if count > 1 and not edit.replace_all:
            return (
                f"{label}old_string found {count} times in {shown}; add surrounding context "
                "to make it unique or set replace_all; no changes were made"
            )
        text = text.replace(old, new, -1 if edit.replace_all else 1)
        replacements += count if edit.replace_all else 1
    return text, replacements


def _uses_crlf(text: str) -> bool:
    crlf = text.count("\r\n")
    return crlf > 0 and crlf >= text.count("\n") - crlf


def _with_eol(fragment: str, eol: str) -> str:
    # Models write \n; a CRLF file needs \r\n to match, and new text must not mix endings.
    plain = fragment.replace("\r\n", "\n")
    return plain.replace("\n", eol) if eol != "\n" else plain


def _near_miss(text: str, old: str) -> str:
    """Where the first line of `old_string` occurs ignoring indentation, to guide a retry."""
    first = next((line.strip() for line in old.splitlines() if line.strip()), "")
    if not first:
        return ""
    hits = [n for n, line in enumerate(text.split("\n"), 1) if first in line]
    if not hits:
        return ""
    where = ", ".join(str(n) for n in hits[:3]) + (", …" if len(hits) > 3 else "")
    lines = "line" if len(hits) == 1 else "lines"
    return f" (its first line, trimmed, appears at {lines} {where}; check the text after it)"
