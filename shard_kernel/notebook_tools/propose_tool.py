"""ProposeCellEditTool: a change to one cell, shown as a diff a person accepts; nothing written.

The result carries a CellEditDescriptor (shard_core/types/render.py): the notebook, the cell, the
source the proposal was made against and the whole proposed source. A client holding the open
notebook applies it on Accept, to its live document (unsaved work kept, undoable), and diffs
again when the cell changed since.
"""

from __future__ import annotations

import uuid

from shard_core.contracts import ToolContext
from shard_core.contracts.access import PathAccess, ToolAccess
from shard_core.tools.diffs import diff_texts
from shard_core.tools.guard import guarded
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import CellEditDescriptor
from shard_kernel.notebook_tools.context import NotebookSetup, path_description, resolve_notebook
from shard_kernel.notebook_tools.document import NotebookError
from shard_kernel.notebook_tools.store import NotebookStore

MAX_SOURCE_CHARS = 200_000
CELL_TYPES = ("code", "markdown", "raw")


class ProposeCellEditTool:
    name: str = "propose_cell_edit"
    read_only: bool = True  # it reads the notebook; the person's Accept is what changes it
    access: ToolAccess = PathAccess()

    def __init__(self, setup: NotebookSetup, store: NotebookStore | None = None) -> None:
        self.store = store or NotebookStore()
        self.description = (
            "Propose a new source for one notebook cell, for the person to Accept or Reject "
            "as a diff on that cell. Use it when someone asked about a cell in their notebook "
            "(fix, explain, change): nothing is written until they accept, and their unsaved "
            "work stays. `source` is the cell's whole new source; `summary` says why in a "
            "sentence. Use notebook_edit instead only for changes you make yourself."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": path_description(setup)},
                "cell_id": {"type": "string", "description": "The cell's id."},
                "source": {"type": "string", "description": "The cell's whole new source."},
                "summary": {"type": "string", "description": "Why, in a sentence or two."},
            },
            "required": ["path", "cell_id", "source"],
            "additionalProperties": False,
        }

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        found = resolve_notebook(input["path"], ctx)
        if isinstance(found, ToolResult):
            return found
        target, shown = found
        cell_id, source = str(input["cell_id"]), str(input["source"])
        summary = str(input.get("summary") or "")[:2000]
        if len(source) > MAX_SOURCE_CHARS:
            return ToolResult.error(f"source is over {MAX_SOURCE_CHARS} characters", path=shown)
        if not target.exists():
            return ToolResult.error(f"{shown} does not exist", path=shown)
        try:
            doc = await self.store.read(target)
        except NotebookError as exc:
            return ToolResult.error(str(exc), path=shown)
        index = next((i for i, c in enumerate(doc.cells) if c.id == cell_id), None)
        cell = doc.cells[index] if index is not None else None
        base = cell.source if cell is not None else None
        if base == source:
            return ToolResult.error(f"cell {cell_id} already reads that source", path=shown)
        cell_type = cell.cell_type if cell is not None else "code"
        descriptor = CellEditDescriptor(
            proposal_id=f"{ctx.call_id}-{uuid.uuid4().hex[:10]}"[:80],
            path=shown,
            file=str(target),
            cell_id=cell_id,
            cell_type=cell_type if cell_type in CELL_TYPES else "code",  # type: ignore[arg-type]
            base=base,
            source=source,
            hunks=diff_texts(base or "", source).hunks,
            summary=summary,
        )
        where = (
            f"cell {cell_id} of {shown}"
            if cell is not None
            else f"cell {cell_id}, which is not in the saved {shown} (the person's view diffs "
            "against the cell as it is there now)"
        )
        text = (
            f"proposed a change to {where}; the person sees it as a diff with Accept / Reject. "
            "Nothing is written until they accept: say what the change does, and do not also "
            "edit the notebook."
        )
        return ToolResult.ok(text, descriptor, path=shown, cell_id=cell_id, proposal=True)
