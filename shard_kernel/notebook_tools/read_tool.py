"""NotebookReadTool: a notebook's cells for the model — ids, types, sources, outputs, images."""

from __future__ import annotations

from typing import Any

from shard_core.contracts import ToolContext
from shard_core.contracts.access import PathAccess, ToolAccess
from shard_core.engine.plurals import counted
from shard_core.tools.guard import guarded
from shard_core.types import JsonObject, TextBlock, ToolResult
from shard_core.types.render import KvDescriptor, KvPair
from shard_kernel.notebook_tools.context import NotebookSetup, path_description, resolve_notebook
from shard_kernel.notebook_tools.document import Cell, NotebookError, NotebookFile
from shard_kernel.notebook_tools.outputs import Budget, summarise
from shard_kernel.notebook_tools.store import NotebookStore

MAX_SOURCE_CHARS = 20_000
DEFAULT_LIMIT = 100


class NotebookReadTool:
    name: str = "notebook_read"
    read_only: bool = True
    access: ToolAccess = PathAccess()

    def __init__(self, setup: NotebookSetup, store: NotebookStore | None = None) -> None:
        self.store = store or NotebookStore()
        self.description = (
            "Read a Jupyter notebook: each cell's id, type, execution count, source and outputs "
            "(text and tracebacks, images attached so you can see plots). Use the ids with "
            "notebook_edit and notebook_run. Large notebooks come in pages: pass `start` "
            "(a cell index) as the result says, or `cells` (ids) for particular cells."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": path_description(setup)},
                "cells": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Only these cells (ids).",
                },
                "start": {"type": "integer", "minimum": 0, "description": "First cell index."},
                "limit": {"type": "integer", "minimum": 1, "description": "At most this many."},
            },
            "required": ["path"],
            "additionalProperties": False,
        }

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        found = resolve_notebook(input["path"], ctx)
        if isinstance(found, ToolResult):
            return found
        target, shown = found
        try:
            doc = await self.store.read(target)
        except NotebookError as exc:
            return ToolResult.error(str(exc), path=shown)
        return _read(doc, shown, input)


def _read(doc: NotebookFile, shown: str, input: JsonObject) -> ToolResult:
    indexed = list(enumerate(doc.cells))
    if wanted := input.get("cells"):
        try:
            picked = {doc.find(str(cell_id)) for cell_id in wanted}
        except NotebookError as exc:
            return ToolResult.error(str(exc), path=shown)
        indexed = [(i, c) for i, c in indexed if i in picked]
    start = int(input.get("start", 0))
    limit = int(input.get("limit", DEFAULT_LIMIT))
    indexed = [(i, c) for i, c in indexed if i >= start][:limit]
    budget = Budget()
    blocks: list[str] = [_header(doc, shown)]
    shown_count = 0
    for index, cell in indexed:
        if budget.chars <= 0:
            break
        blocks.append(_cell_text(index, cell, budget))
        shown_count += 1
    rest = indexed[shown_count:]
    if rest:
        blocks.append(
            f"… {counted(len(rest), 'more cell')} not shown (output budget); "
            "call notebook_read again "
            f"with start={rest[0][0]}"
        )
    elif not wanted and indexed and indexed[-1][0] + 1 < len(doc.cells):
        blocks.append(f"… cells after index {indexed[-1][0]}: call again with "
                      f"start={indexed[-1][0] + 1}")  # fmt: skip
    content: list[Any] = [TextBlock(text="\n\n".join(blocks)), *budget.attached]
    summary = KvDescriptor(
        pairs=[
            KvPair(k="notebook", v=shown),
            KvPair(k="cells", v=f"{shown_count} of {len(doc.cells)} shown"),
            KvPair(k="images", v=str(len(budget.attached))),
        ]
    )
    details = {"path": shown, "cells": len(doc.cells), "shown": shown_count}
    return ToolResult(content=content, render=[summary], details=details)


def _header(doc: NotebookFile, shown: str) -> str:
    meta = doc.top.get("metadata", {})
    spec = meta.get("kernelspec", {}) if isinstance(meta, dict) else {}
    kernel = spec.get("name") if isinstance(spec, dict) else None
    parts = [f"{shown}: {counted(len(doc.cells), 'cell')}"]
    if kernel:
        parts.append(f"kernel {kernel}")
    if doc.notes:
        parts.append("ids shown are assigned on the first notebook_edit (" + "; ".join(doc.notes)
                     + ")")  # fmt: skip
    return ", ".join(parts)


def _cell_text(index: int, cell: Cell, budget: Budget) -> str:
    head = f"## cell {index} · id {cell.id} · {cell.cell_type}"
    if cell.cell_type == "code":
        count = cell.data.get("execution_count")
        head += f" · [{count if count is not None else ' '}]"
    source = budget.take_text(cell.source, MAX_SOURCE_CHARS) if cell.source else "(empty)"
    lines = [head, source]
    outputs = cell.data.get("outputs") or []
    if outputs:
        lines.append("### outputs")
        lines.extend(summarise(outputs, budget))
    return "\n".join(lines)
