"""NotebookEditTool: change a notebook's cells by id, validated, written atomically, diffed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

from shard_core.contracts import ToolContext
from shard_core.contracts.access import PathAccess, ToolAccess
from shard_core.engine.plurals import counted
from shard_core.tools.diffs import diff_texts
from shard_core.tools.guard import check_input, guarded
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import DiffDescriptor, RenderDescriptor, StatusDescriptor
from shard_kernel.notebook_tools.context import NotebookSetup, path_description, resolve_notebook
from shard_kernel.notebook_tools.document import NotebookError, NotebookFile, validate_text
from shard_kernel.notebook_tools.operations import OPERATION_SCHEMA, Change, apply_operations
from shard_kernel.notebook_tools.store import NotebookStore

Saved = Callable[[Path], Awaitable[None]]
"""told after a notebook was written (the live-document bridge listens)"""


class NotebookEditTool:
    name: str = "notebook_edit"
    read_only: bool = False
    access: ToolAccess = PathAccess(writes=True)

    def __init__(
        self,
        setup: NotebookSetup,
        store: NotebookStore | None = None,
        on_saved: Saved | None = None,
    ) -> None:
        self.store = store or NotebookStore()
        self._on_saved = on_saved
        self.description = (
            "Change a Jupyter notebook's cells by cell id (see notebook_read). Operations apply "
            "in order, all or nothing: insert {cell_type, source, after|before} (default: at the "
            "end; the result gives the new id), replace {id, source, cell_type?} (the whole "
            "source; outputs stay until the cell runs again), delete {id}, move {id, "
            "after|before}, set_type {id, cell_type}, clear_outputs {id?} (all code cells "
            "without id). A missing notebook is created. The result is validated against "
            "nbformat before anything is written; untouched cells stay exactly as they were. "
            "Never edit a notebook's JSON with edit or write."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": path_description(setup)},
                "operations": {"type": "array", "items": OPERATION_SCHEMA, "minItems": 1},
            },
            "required": ["path", "operations"],
            "additionalProperties": False,
        }

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        found = resolve_notebook(input["path"], ctx)
        if isinstance(found, ToolResult):
            return found
        target, shown = found
        created = not target.exists()
        operations = input["operations"]

        def apply(doc: NotebookFile) -> tuple[list[Change], NotebookFile]:
            return apply_operations(doc, operations), doc

        try:
            (changes, doc), shared = await self.store.change(target, apply, create=True)
        except NotebookError as exc:
            return ToolResult.error(str(exc), path=shown)
        if self._on_saved is not None:
            await self._on_saved(target)
        return _report(shown, created, changes, doc, shared)

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        """The cell diff this call would make; nothing is written."""
        if check_input(self.input_schema, input) is not None:
            return []
        found = resolve_notebook(input["path"], ctx)
        if isinstance(found, ToolResult):
            return []
        target, shown = found
        try:
            doc = (
                await self.store.read(target)
                if target.exists()
                else NotebookFile.load(target, create=True)
            )
            changes = apply_operations(doc, input["operations"])
            validate_text(doc.render(), shown)
        except NotebookError:
            return []
        return cell_diff(shown, changes)


def _report(
    shown: str, created: bool, changes: list[Change], doc: NotebookFile, shared: bool
) -> ToolResult:
    where = " (in the shared document: every open view shows it now)" if shared else ""
    lines = [
        f"{'created' if created else 'edited'} {shown}{where}: "
        f"{counted(len(doc.cells), 'cell')} now"
    ]
    lines += [f"- {_describe(c)}" for c in changes]
    lines += [f"- note: {n}" for n in doc.notes]
    return ToolResult.ok(
        "\n".join(lines),
        *cell_diff(shown, changes),
        path=shown,
        changes=[{"kind": c.kind, "id": c.cell_id} for c in changes],
        cells=[c.id for c in doc.cells],
        shared_document=shared,
    )


def _describe(change: Change) -> str:
    text = f"{change.kind} {change.cell_type} cell {change.cell_id}"
    return f"{text} ({change.note})" if change.note else text


def cell_diff(shown: str, changes: list[Change]) -> list[RenderDescriptor]:
    """One diff per changed cell source (created / modified / deleted), a status line for the
    rest (moves, type changes, cleared outputs)."""
    out: list[RenderDescriptor] = []
    for change in changes:
        where = f"{shown} · cell {change.cell_id} ({change.cell_type})"
        if change.kind in ("inserted", "replaced", "deleted"):
            status: dict[str, Literal["created", "modified", "deleted"]] = {
                "inserted": "created",
                "replaced": "modified",
                "deleted": "deleted",
            }
            hunks = diff_texts(change.old, change.new).hunks
            out.append(DiffDescriptor(path=where, hunks=hunks, status=status[change.kind]))
        else:
            out.append(StatusDescriptor(label=f"{where}: {change.kind} {change.note}".strip()))
    return out
