"""Notebooks cell by cell (by cell id): a three-way restore and a per-cell view for review.

A rewind of a notebook nobody touched since the agent writes the earlier bytes back as they
were. When a person changed it since, `merge` restores each cell by its id: a cell as the
agent left it goes back to how it was; a cell the agent did not change keeps the person's
version; a cell both changed is a conflict. Nothing here imports nbformat (shard_core is
Jupyter-free): a notebook is JSON with a `cells` list whose cells carry an `id`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

Cell = dict[str, Any]
Notebook = dict[str, Any]
EMPTY: Notebook = {"cells": []}
"""a notebook that did not exist: no cells"""


def parse(data: bytes | None) -> dict[str, Any] | None:
    """The notebook in `data`, None when it is not one with an id on every cell."""
    if data is None:
        return None
    try:
        found = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(found, dict):
        return None
    notebook = cast(dict[str, Any], found)
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        return None
    for cell in cast(list[Any], cells):
        if not isinstance(cell, dict) or not isinstance(cast(Cell, cell).get("id"), str):
            return None
    return notebook


def cells(notebook: dict[str, Any] | None) -> dict[str, Cell]:
    if notebook is None:
        return {}
    return {c["id"]: c for c in cast(list[Cell], notebook["cells"])}


def source(cell: Cell | None) -> str:
    if cell is None:
        return ""
    raw = cell.get("source", "")
    return "".join(cast(list[str], raw)) if isinstance(raw, list) else str(raw)


def outputs_summary(cell: Cell | None) -> str:
    """'2 outputs: stream, execute_result' (images and data named by type, never inlined)."""
    if cell is None or cell.get("cell_type") != "code":
        return ""
    outs = cast(list[dict[str, Any]], cell.get("outputs") or [])
    if not outs:
        return "no outputs"
    kinds: list[str] = []
    for out in outs:
        kind = str(out.get("output_type", "?"))
        if kind in ("display_data", "execute_result"):
            mimes = sorted(cast(dict[str, Any], out.get("data") or {}))
            kind += f" ({', '.join(mimes)})" if mimes else ""
        elif kind == "error":
            kind += f" ({out.get('ename', '')})"
        kinds.append(kind)
    return f"{len(outs)} output{'s' if len(outs) != 1 else ''}: {', '.join(kinds)}"


def _same(a: Cell | None, b: Cell | None) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@dataclass
class Merged:
    data: bytes | None
    """the restored notebook, None when a cell conflicts"""
    conflicts: list[str] = field(default_factory=list[str])
    kept: list[str] = field(default_factory=list[str])
    """cells a person changed that the agent had not: left as the person has them"""


def merge(target: bytes, agent: bytes, current: bytes) -> Merged | None:
    """Restore `target` into `current` cell by cell, given the agent's version; None when any
    of the three is not a notebook with cell ids."""
    t_nb, a_nb, c_nb = parse(target), parse(agent), parse(current)
    if t_nb is None or a_nb is None or c_nb is None:
        return None
    t, a, c = cells(t_nb), cells(a_nb), cells(c_nb)
    result: dict[str, Cell | None] = {}
    out = Merged(None)
    for cid in dict.fromkeys([*c, *t, *a]):
        tc, ac, cc = t.get(cid), a.get(cid), c.get(cid)
        if _same(cc, ac):
            result[cid] = tc
        elif _same(tc, ac):
            result[cid] = cc
            out.kept.append(cid)
        elif _same(cc, tc):
            result[cid] = tc
        else:
            out.conflicts.append(cid)
    if out.conflicts:
        return out
    order = _order(list(c), list(t))
    merged = dict(c_nb)
    merged["cells"] = [cell for cid in order if (cell := result.get(cid)) is not None]
    if _same(c_nb.get("metadata"), a_nb.get("metadata")):
        merged["metadata"] = t_nb.get("metadata", {})
    out.data = (json.dumps(merged, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return out


def _order(current: list[str], target: list[str]) -> list[str]:
    """The current order, with each cell only the target has placed after its predecessor."""
    order = list(current)
    for i, cid in enumerate(target):
        if cid in order:
            continue
        before = next((p for p in reversed(target[:i]) if p in order), None)
        order.insert(order.index(before) + 1 if before is not None else 0, cid)
    return order
