"""What the notebook tools of one agent share: the default notebook and where paths resolve."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
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
    shared_documents: bool = True
    """change notebooks through the collaboration server's shared document when the Jupyter
    server that started this process has jupyter-collaboration"""
    server_kernels: bool = True
    """start the workspace kernel through the Jupyter server that started this process, when
    there is one (it is then listed in Lab and open to a console)"""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> NotebookSetup:
        """`SHARD_WORKSPACE_KERNEL` (a kernelspec name) and `SHARD_WORKSPACE_TIMEOUT` (seconds),
        also with the `KERNEL_` prefix a gateway's create request passes through."""

        def read(name: str) -> str | None:
            value = env.get(f"KERNEL_SHARD_{name}") or env.get(f"SHARD_{name}")
            return value.strip() if value and value.strip() else None

        setup = cls()
        if kernel := read("WORKSPACE_KERNEL"):
            setup.kernel_name = kernel
        if timeout := read("WORKSPACE_TIMEOUT"):
            # A typo keeps the default rather than stop the agent from starting.
            with contextlib.suppress(ValueError):
                seconds = float(timeout)
                if 0 < seconds < math.inf:
                    setup.exec_timeout = seconds
        return setup


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
