"""Notebook-aware tools and the workspace kernel (L4: they use nbformat and jupyter_client).

`notebook_extension()` is what agents install; the rest is re-exported for tests and surfaces.
"""

from shard_kernel.notebook_tools.context import NotebookSetup
from shard_kernel.notebook_tools.document import NotebookError, NotebookFile
from shard_kernel.notebook_tools.extension import (
    EXTENSION_NAME,
    declare_notebook_tools,
    notebook_extension,
)
from shard_kernel.notebook_tools.workspace_kernel import Execution, KernelError, WorkspaceKernel

__all__ = [
    "EXTENSION_NAME",
    "Execution",
    "KernelError",
    "NotebookError",
    "NotebookFile",
    "NotebookSetup",
    "WorkspaceKernel",
    "declare_notebook_tools",
    "notebook_extension",
]
