"""notebook_edit's operations — insert, replace, delete, move, set_type, clear_outputs — by id.

All of a call's operations apply in order to the loaded notebook in memory; the first one that
cannot apply stops the call and nothing is written. Each applied operation leaves a `Change`
that the tool turns into its cell-level diff.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from shard_kernel.notebook_tools.document import Cell, Json, NotebookError, NotebookFile, fresh_id

CellType = Literal["code", "markdown", "raw"]
CELL_TYPES: tuple[CellType, ...] = ("code", "markdown", "raw")
OPS = ("insert", "replace", "delete", "move", "set_type", "clear_outputs")

_PLACE: Json = {
    "after": {"type": "string", "description": "Put it after the cell with this id."},
    "before": {"type": "string", "description": "Put it before the cell with this id."},
}
OPERATION_SCHEMA: Json = {
    "type": "object",
    "properties": {
        "op": {"type": "string", "enum": list(OPS)},
        "id": {"type": "string", "description": "The cell the operation is about."},
        "cell_type": {"type": "string", "enum": list(CELL_TYPES)},
        "source": {"type": "string", "description": "The cell's whole new source."},
        **_PLACE,
    },
    "required": ["op"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Change:
    """What one operation did to one cell (old/new source for the diff)."""

    kind: Literal["inserted", "replaced", "deleted", "moved", "retyped", "cleared"]
    cell_id: str
    cell_type: str
    old: str = ""
    new: str = ""
    note: str = ""


def apply_operations(doc: NotebookFile, operations: list[Any]) -> list[Change]:
    if not operations:
        raise NotebookError("operations is empty; nothing to do")
    changes: list[Change] = []
    for number, op in enumerate(operations, 1):
        label = f"operation {number} ({op.get('op', '?')})" if isinstance(op, dict) else ""
        try:
            changes.extend(_apply(doc, op))
        except NotebookError as exc:
            where = f"{label}: " if len(operations) > 1 else ""
            raise NotebookError(f"{where}{exc}; nothing was written") from None
    return changes


def _apply(doc: NotebookFile, op: Json) -> list[Change]:
    kind = op["op"]
    if kind not in OPS:
        raise NotebookError(f"unknown op {kind!r}; known: {', '.join(OPS)}")
    if kind == "insert":
        return [_insert(doc, op)]
    if kind == "clear_outputs" and "id" not in op:
        return [c for cell in doc.cells if (c := _clear(cell)) is not None]
    cell_id = _required(op, "id")
    index = doc.find(cell_id)
    cell = doc.cells[index]
    if kind == "replace":
        return [_replace(doc, cell, op)]
    if kind == "delete":
        del doc.cells[index]
        return [Change("deleted", cell.id, cell.cell_type, old=cell.source)]
    if kind == "move":
        return [_move(doc, index, op)]
    if kind == "set_type":
        return [_retype(cell, _cell_type(op, required=True) or "code")]
    change = _clear(cell)
    return [change] if change else []


def _insert(doc: NotebookFile, op: Json) -> Change:
    cell_type = _cell_type(op, required=False) or "code"
    source = op.get("source", "")
    data: Json = {"cell_type": cell_type, "id": fresh_id(doc.ids()), "metadata": {}}
    data["source"] = doc.stored_source(source)
    if cell_type == "code":
        data.update(execution_count=None, outputs=[])
    position = _position(doc, op, default=len(doc.cells))
    doc.cells.insert(position, Cell(data))
    return Change("inserted", data["id"], cell_type, new=source)


def _replace(doc: NotebookFile, cell: Cell, op: Json) -> Change:
    if "source" not in op:
        raise NotebookError("replace needs 'source' (the cell's whole new source)")
    old = cell.source
    new_type = _cell_type(op, required=False)
    if new_type and new_type != cell.cell_type:
        _retype(cell, new_type)
    cell.data["source"] = doc.stored_source(op["source"])
    cell.touch()
    return Change("replaced", cell.id, cell.cell_type, old=old, new=op["source"])


def _move(doc: NotebookFile, index: int, op: Json) -> Change:
    if "after" not in op and "before" not in op:
        raise NotebookError("move needs 'after' or 'before' (a cell id)")
    cell = doc.cells.pop(index)
    if cell.id in (op.get("after"), op.get("before")):
        doc.cells.insert(index, cell)
        raise NotebookError(f"cannot move cell {cell.id!r} next to itself")
    position = _position(doc, op, default=len(doc.cells))
    doc.cells.insert(position, cell)
    where = f"after {op['after']}" if "after" in op else f"before {op['before']}"
    return Change("moved", cell.id, cell.cell_type, note=where)


def _retype(cell: Cell, cell_type: CellType) -> Change:
    old = cell.cell_type
    if old == cell_type:
        return Change("retyped", cell.id, old, note=f"already {old}")
    data = cell.data
    if cell_type == "code":
        data.pop("attachments", None)
        data.update(execution_count=None, outputs=[])
    else:
        data.pop("outputs", None)
        data.pop("execution_count", None)
    data["cell_type"] = cell_type
    cell.touch()
    return Change("retyped", cell.id, cell_type, note=f"{old} → {cell_type}")


def _clear(cell: Cell) -> Change | None:
    data = cell.data
    if cell.cell_type != "code" or (
        not data.get("outputs") and data.get("execution_count") is None
    ):
        return None
    data.update(outputs=[], execution_count=None)
    cell.touch()
    return Change("cleared", cell.id, "code", note="outputs cleared")


def _position(doc: NotebookFile, op: Json, default: int) -> int:
    if "after" in op and "before" in op:
        raise NotebookError("give 'after' or 'before', not both")
    if "after" in op:
        return doc.find(_required(op, "after")) + 1
    if "before" in op:
        return doc.find(_required(op, "before"))
    return default


def _required(op: Json, key: str) -> str:
    value = op.get(key)
    if not isinstance(value, str) or not value:
        raise NotebookError(f"{op['op']} needs '{key}' (a cell id)")
    return value


def _cell_type(op: Json, *, required: bool) -> CellType | None:
    value = op.get("cell_type")
    if value is None and required:
        raise NotebookError(f"{op['op']} needs 'cell_type' ({', '.join(CELL_TYPES)})")
    return value
