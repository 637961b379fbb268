"""The line `edit` and `write` do not cross: a Jupyter notebook's JSON is never hand-edited."""

from __future__ import annotations

from pathlib import Path

from shard_core.types import ToolResult

NOTEBOOK_SUFFIX = ".ipynb"


def refuse_notebook(tool: str, raw: str, target: Path, shown: str) -> ToolResult | None:
    """An error naming `notebook_edit` when `raw` (as written or as resolved) is a notebook.

    A text edit of a notebook's JSON breaks it easily (escaped source lines, outputs, cell ids)
    and bypasses the checks `notebook_edit` makes, so both spellings of the path are looked at:
    a symlink named `x.json` that points at a notebook is still a notebook.
    """
    if not any(p.lower().endswith(NOTEBOOK_SUFFIX) for p in (raw, target.name)):
        return None
    return ToolResult.error(
        f"{shown} is a Jupyter notebook; {tool} does not change notebooks. Use notebook_edit "
        "(insert, replace, delete or move cells by id) so the notebook stays valid, and "
        "notebook_read to see its cells; nothing was written.",
        path=shown,
    )
