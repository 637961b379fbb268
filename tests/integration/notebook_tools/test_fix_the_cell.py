"""A scripted turn in a real workspace kernel: add a cell, run the notebook, read the output
back, fix the cell that fails from its traceback, rerun it; the saved notebook holds outputs."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from shard_core.protocol.events import Event, ToolResultEvent, TurnEndEvent
from shard_core.types import ProviderRequest, ToolResultBlock, UserMessage
from tests.fixtures.function_provider import FunctionProvider, Reply
from tests.integration.notebook_tools.conftest import AgentFactory

FIXED = 'mean = total / len(values)\nprint(f"mean = {mean}")'


def _notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Monthly values", id="title"),
        nbformat.v4.new_code_cell("values = [3, 4, 5]", id="load"),
        nbformat.v4.new_code_cell('print(f"mean = {mean_of(values)}")', id="report"),
    ]
    nbformat.write(nb, path)


def _last_result(request: ProviderRequest) -> str:
    message = request.messages[-1]
    assert isinstance(message, UserMessage)
    block = message.content[-1]
    assert isinstance(block, ToolResultBlock)
    return "\n".join(getattr(c, "text", "") for c in block.content)


class Model:
    """The model's side: each step reads what the previous tool gave back."""

    def __init__(self) -> None:
        self.added = ""

    def __call__(self, request: ProviderRequest, n: int) -> Reply:
        path = {"path": "data.ipynb"}
        if n == 0:
            insert = {"op": "insert", "after": "load", "source": "total = sum(values)\ntotal"}
            return {"tool_calls": [("notebook_edit", {**path, "operations": [insert]})]}
        if n == 1:
            new_id = re.search(r"inserted code cell (\w+)", _last_result(request))
            assert new_id is not None
            self.added = new_id.group(1)
            return {"tool_calls": [("notebook_run", {**path, "all": True})]}
        if n == 2:
            assert "NameError: name 'mean_of' is not defined" in _last_result(request)
            return {"tool_calls": [("notebook_read", {**path, "cells": [self.added]})]}
        if n == 3:
            assert "[result 2] 12" in _last_result(request)
            fix = {"op": "replace", "id": "report", "source": FIXED}
            return {"tool_calls": [("notebook_edit", {**path, "operations": [fix]})]}
        if n == 4:
            return {"tool_calls": [("notebook_run", {**path, "cell_ids": ["report"]})]}
        assert "mean = 4.0" in _last_result(request)
        return "Fixed: the report cell now computes the mean from the new total cell."


async def test_add_run_read_fix_rerun(make_agent: AgentFactory, work: Path) -> None:
    _notebook(work / "data.ipynb")
    model = Model()
    provider = FunctionProvider(model)
    agent = await make_agent(provider)
    events: list[Event] = []
    try:
        events = [e async for e in agent.prompt("add a total cell and fix the cell that errors")]
        kernel = agent.session.tools.get("python_exec").kernel  # type: ignore[union-attr]
        pid = kernel.manager.provisioner.process.pid
    finally:
        await agent.close()
    end = events[-1]
    assert isinstance(end, TurnEndEvent)
    assert end.reason == "completed", [e for e in events if e.type == "error"]
    assert len(provider.requests) == 6
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [r.result.is_error for r in results] == [False, True, False, False, False]

    nb = nbformat.read(work / "data.ipynb", as_version=4)
    nbformat.validate(nb)
    by_id = {c.id: c for c in nb.cells}
    added = by_id[model.added]
    assert [c.id for c in nb.cells] == ["title", "load", added.id, "report"]
    assert by_id["load"].execution_count == 1
    assert added.execution_count == 2
    assert added.outputs == [
        {
            "output_type": "execute_result",
            "execution_count": 2,
            "data": {"text/plain": "12"},
            "metadata": {},
        }
    ]
    assert by_id["report"].source == FIXED
    assert by_id["report"].execution_count == 4
    assert by_id["report"].outputs == [
        {"output_type": "stream", "name": "stdout", "text": "mean = 4.0\n"}
    ]
    assert not Path(f"/proc/{pid}").exists()  # the workspace kernel ended with the agent
