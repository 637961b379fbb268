"""`%shard new --notebook this` in a real python3 kernel that knows its notebook (as Jupyter
tells it, through JPY_SESSION_NAME): the agent's code runs in the user's kernel — each sees the
other's variables — and its cells land in the notebook with their outputs."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

RULES = "--allow PythonExec --allow NotebookRun --allow 'Edit(**/*.ipynb)'"


@pytest.fixture
def kernel(home: Path, work: Path) -> Iterator[BlockingKernelClient]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("user_var = 7", id="mine")]
    nbformat.write(notebook, work / "analysis.ipynb")
    km = KernelManager(kernel_name="python3")
    env = {**os.environ, "JPY_SESSION_NAME": str(work / "analysis.ipynb")}
    km.start_kernel(cwd=str(work), env=env)
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        yield client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def run(client: BlockingKernelClient, code: str) -> str:
    """Execute and return everything printed or displayed (text/plain)."""
    out: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "stream":
            out.append(content["text"])
        elif msg["msg_type"] in ("execute_result", "display_data"):
            out.append(content["data"].get("text/plain", ""))
        elif msg["msg_type"] == "error":
            out.append("\n".join(content["traceback"]))

    client.execute_interactive(code, output_hook=hook, timeout=120)
    return "".join(out)


def test_the_agent_works_in_the_users_kernel(kernel: BlockingKernelClient, work: Path) -> None:
    script = work / "script.json"
    steps = [
        {"tool_calls": [{"name": "python_exec", "input": {"code": "agent_var = user_var * 6"}}]},
        {"tool_calls": [{"name": "python_exec", "input": {"code": "agent_var"}}]},
        {
            "expect": {"last_tool_result_contains": ["42"]},
            "tool_calls": [{"name": "notebook_edit", "input": {"path": "analysis.ipynb",
                "operations": [{"op": "insert", "after": "mine", "source": "agent_var + 1"}]}}],
        },
        {"tool_calls": [{"name": "notebook_run", "input": {"path": "analysis.ipynb",
                                                            "from": "mine"}}]},
        {"expect": {"last_tool_result_contains": ["43"]}, "text": "Done."},
    ]  # fmt: skip
    script.write_text(json.dumps({"name": "notebook-this", "steps": steps}))
    run(kernel, "user_var = 7\n%load_ext shard_kernel")
    created = run(kernel, f"%shard new --notebook this --model scripted/{script} {RULES}")
    assert "agent agent1 works on" in created
    assert "it executes code in THIS notebook's kernel" in created
    refused = run(kernel, "%%shard --wait\ngo")
    assert "--wait would block the kernel this agent runs its code in" in refused
    run(kernel, "%%shard\ngo")
    for _ in range(600):  # the turn runs on the agent's thread; this kernel stays free for it
        status = run(kernel, "%shard status")
        if "idle" in status and "agent_var" in run(kernel, "print(dir())"):
            break
    assert run(kernel, "agent_var") == "42"  # the user sees the agent's variable
    host = run(kernel, "print(get_ipython().magics_manager.registry['ShardMagics']"
                       ".agents['agent1'].agent.session.status)")  # fmt: skip
    assert host.strip() == "idle"
    saved = nbformat.read(work / "analysis.ipynb", as_version=4)
    nbformat.validate(saved)
    assert [c.source for c in saved.cells] == ["user_var = 7", "agent_var + 1"]
    assert saved.cells[1].outputs[0]["data"] == {"text/plain": "43"}
