"""edit and write refuse notebooks with an error naming notebook_edit, and change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import EditTool, WriteTool
from tests.unit.tools.conftest import run

NOTEBOOK = json.dumps(
    {
        "cells": [
            {"cell_type": "code", "id": "a1", "metadata": {}, "source": "x = 1",
             "outputs": [], "execution_count": None},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    },
    indent=1,
)  # fmt: skip


@pytest.fixture
def notebook(workspace: Path) -> Path:
    path = workspace / "analysis.ipynb"
    path.write_text(NOTEBOOK)
    return path


async def test_edit_refuses_a_notebook(notebook: Path, ctx: ToolContext) -> None:
    result = await run(EditTool(), ctx, path="analysis.ipynb", old_string="x = 1", new_string="x=2")
    assert result.is_error
    assert result.text.startswith("analysis.ipynb is a Jupyter notebook; edit does not change")
    assert "notebook_edit" in result.text
    assert notebook.read_text() == NOTEBOOK
    assert (
        await EditTool().preview(
            {"path": "analysis.ipynb", "old_string": "x = 1", "new_string": "x=2"}, ctx
        )
        == []
    )


@pytest.mark.parametrize("name", ["analysis.ipynb", "NEW.IPYNB"])
async def test_write_refuses_a_notebook_new_or_existing(
    name: str, notebook: Path, workspace: Path, ctx: ToolContext
) -> None:
    result = await run(WriteTool(), ctx, path=name, content="{}")
    assert result.is_error
    assert "notebook_edit" in result.text
    assert "nothing was written" in result.text
    assert notebook.read_text() == NOTEBOOK
    assert sorted(p.name for p in workspace.iterdir()) == ["analysis.ipynb"]


async def test_a_link_to_a_notebook_is_still_a_notebook(
    notebook: Path, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "data.json").symlink_to(notebook)
    result = await run(WriteTool(), ctx, path="data.json", content="{}")
    assert result.is_error
    assert "notebook_edit" in result.text
    assert notebook.read_text() == NOTEBOOK


async def test_other_json_files_are_still_written(workspace: Path, ctx: ToolContext) -> None:
    result = await run(WriteTool(), ctx, path="data.json", content="{}")
    assert not result.is_error
    assert (workspace / "data.json").read_text() == "{}"
