"""A long python_exec streams what it prints through the tool context's `on_update`: the output
so far and a progress descriptor, while the cell is still running."""

from __future__ import annotations

import os
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.types import ToolResult
from shard_core.types.render import ProgressDescriptor
from shard_kernel.notebook_tools import NotebookSetup, WorkspaceKernel
from shard_kernel.notebook_tools.exec_tools import PythonExecTool

TICKS = "import time\nfor i in range(6):\n    print('tick', i, flush=True)\n    time.sleep(0.3)"


async def test_output_streams_while_the_cell_runs(work: Path) -> None:
    updates: list[ToolResult] = []
    cwd = Path(os.path.realpath(work))
    ctx = ToolContext(
        cwd=cwd, roots=[cwd], agent_id="a", session_id="s", call_id="c", on_update=updates.append
    )
    kernel = WorkspaceKernel(use_server=False)
    try:
        result = await PythonExecTool(kernel, NotebookSetup()).execute({"code": TICKS}, ctx)
    finally:
        await kernel.shutdown()
    assert not result.is_error
    assert "tick 5" in result.text
    assert updates  # at least one update before the end
    first = updates[0]
    assert first.text.startswith("[stdout]\ntick 0")
    assert "tick 5" not in first.text  # sent while the loop was still going
    progress = first.render[0]
    assert isinstance(progress, ProgressDescriptor)
    assert progress.label.startswith("python_exec: running ")
