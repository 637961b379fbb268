"""What the notebook tools of one agent share: the default notebook and where paths resolve."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import ToolResult

NOT_A_NOTEBOOK = "notebook tools work on .ipynb files"


@dataclass
class NotebookSetup:
    """Options every surface passes when it installs the notebook tools."""

    default_notebook: Path | None = None
    """the notebook `%shard new --notebook this` handed over; tools name it in their text"""
    kernel_name: str = "python3"
    """the workspace kernel's kernelspec"""
    connection_file: Path | None = None
    """an already running kernel to use as the workspace kernel (the notebook's own kernel)"""
    exec_timeout: float = 600.0
    """seconds a python_exec / notebook_run call may run before it is interrupted"""


def resolve_notebook(raw: str, ctx: ToolContext) -> tuple[Path, str] | ToolResult:
    target = resolve_in_workspace(raw, ctx)
    if isinstance(target, ToolResult):
        return target
    shown = display_path(target, ctx)
    if target.suffix.lower() != ".ipynb":
        return ToolResult.error(f"{shown} is not a notebook; {NOT_A_NOTEBOOK}", path=shown)
    return target, shown


def path_description(setup: NotebookSetup) -> str:
    base = "The notebook (.ipynb), relative to the cwd."
    if setup.default_notebook is not None:
        return f"{base} The notebook you were handed is {setup.default_notebook.name}."
    return base
