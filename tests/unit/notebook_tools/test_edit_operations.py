"""notebook_edit's operations by cell id; every bad input is a clear error and writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from shard_core.contracts import ToolContext
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import DiffDescriptor, StatusDescriptor
from shard_kernel.notebook_tools import NotebookSetup
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = Path(os.path.realpath(tmp_path))
    return ToolContext(cwd=ws, roots=[ws], agent_id="a", session_id="s", call_id="c")


@pytest.fixture
def notebook(ctx: ToolContext) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title", id="md"),
        nbformat.v4.new_code_cell("x = 1\nx", id="one"),
        nbformat.v4.new_code_cell("print(x)", id="two"),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "1"},
                                                  execution_count=1)]  # fmt: skip
    nb.cells[1].execution_count = 1
    path = ctx.cwd / "a.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


async def edit(ctx: ToolContext, *ops: JsonObject, path: str = "a.ipynb") -> ToolResult:
    return await NotebookEditTool(NotebookSetup()).execute(
        {"path": path, "operations": list(ops)}, ctx
    )


def cells(path: Path) -> list[tuple[str, str, str]]:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return [(c.id, c.cell_type, c.source) for c in nb.cells]


async def test_insert_replace_move_delete_in_one_call(notebook: Path, ctx: ToolContext) -> None:
    result = await edit(
        ctx,
        {"op": "insert", "after": "md", "cell_type": "code", "source": "import math"},
        {"op": "replace", "id": "two", "source": "print(x + 1)"},
        {"op": "move", "id": "two", "before": "one"},
        {"op": "delete", "id": "md"},
    )
    assert not result.is_error, result.text
    new_id = result.details["changes"][0]["id"]
    assert cells(notebook) == [
        (new_id, "code", "import math"),
        ("two", "code", "print(x + 1)"),
        ("one", "code", "x = 1\nx"),
    ]
    kinds = [(type(r).__name__, getattr(r, "status", None)) for r in result.render]
    assert kinds == [
        ("DiffDescriptor", "created"),
        ("DiffDescriptor", "modified"),
        ("StatusDescriptor", None),
        ("DiffDescriptor", "deleted"),
    ]
    modified = result.render[1]
    assert isinstance(modified, DiffDescriptor)
    assert modified.path == "a.ipynb · cell two (code)"
    assert modified.hunks[0].lines == ["-print(x)", "+print(x + 1)"]


async def test_set_type_and_clear_outputs(notebook: Path, ctx: ToolContext) -> None:
    result = await edit(
        ctx, {"op": "clear_outputs"}, {"op": "set_type", "id": "md", "cell_type": "code"}
    )
    assert not result.is_error, result.text
    nb = nbformat.read(notebook, as_version=4)
    assert nb.cells[0].cell_type == "code"
    assert nb.cells[0].outputs == []
    assert nb.cells[1].outputs == []
    assert nb.cells[1].execution_count is None
    assert all(isinstance(r, StatusDescriptor) for r in result.render)


async def test_replace_keeps_outputs_until_the_cell_runs(notebook: Path, ctx: ToolContext) -> None:
    await edit(ctx, {"op": "replace", "id": "one", "source": "x = 3\nx"})
    nb = nbformat.read(notebook, as_version=4)
    assert nb.cells[1].outputs[0]["data"] == {"text/plain": "1"}


@pytest.mark.parametrize(
    ("op", "message"),
    [
        ({"op": "delete", "id": "nope"}, "no cell with id 'nope'; cell ids: md, one, two"),
        ({"op": "replace", "id": "one"}, "replace needs 'source'"),
        ({"op": "move", "id": "one"}, "move needs 'after' or 'before'"),
        ({"op": "move", "id": "one", "after": "one"}, "cannot move cell 'one' next to itself"),
        ({"op": "insert", "after": "md", "before": "one"}, "give 'after' or 'before', not both"),
        ({"op": "set_type", "id": "one"}, "set_type needs 'cell_type'"),
        ({"op": "explode", "id": "one"}, "unknown op 'explode'; known: insert, replace"),
    ],
)
async def test_bad_operations_write_nothing(
    op: JsonObject, message: str, notebook: Path, ctx: ToolContext
) -> None:
    before = notebook.read_bytes()
    result = await edit(ctx, {"op": "insert", "source": "fine"}, op)
    assert result.is_error
    assert message in result.text
    assert notebook.read_bytes() == before


async def test_a_missing_notebook_is_created_valid(ctx: ToolContext) -> None:
    result = await edit(ctx, {"op": "insert", "cell_type": "markdown", "source": "# New"},
                        path="new.ipynb")  # fmt: skip
    assert not result.is_error, result.text
    assert result.text.startswith("created new.ipynb: 1 cell now")
    assert [t for _, t, _ in cells(ctx.cwd / "new.ipynb")] == ["markdown"]


async def test_not_a_notebook_and_broken_json_are_refused(ctx: ToolContext) -> None:
    (ctx.cwd / "x.py").write_text("print(1)\n")
    (ctx.cwd / "broken.ipynb").write_text('{"cells": [')
    wrong = await edit(ctx, {"op": "insert", "source": "1"}, path="x.py")
    broken = await edit(ctx, {"op": "insert", "source": "1"}, path="broken.ipynb")
    assert wrong.is_error
    assert "x.py is not a notebook" in wrong.text
    assert broken.is_error
    assert "broken.ipynb is not a notebook (not JSON" in broken.text
    assert (ctx.cwd / "broken.ipynb").read_text() == '{"cells": ['


async def test_an_edit_that_breaks_the_schema_is_refused(notebook: Path, ctx: ToolContext) -> None:
    raw = json.loads(notebook.read_text())
    raw["cells"][0]["metadata"] = []  # invalid: metadata must be an object
    notebook.write_text(json.dumps(raw, indent=1))
    before = notebook.read_bytes()
    result = await edit(ctx, {"op": "insert", "source": "1"})
    assert result.is_error
    assert "the change would make a.ipynb invalid" in result.text
    assert notebook.read_bytes() == before


async def test_preview_shows_the_diff_and_writes_nothing(notebook: Path, ctx: ToolContext) -> None:
    before = notebook.read_bytes()
    tool = NotebookEditTool(NotebookSetup())
    shown = await tool.preview(
        {"path": "a.ipynb", "operations": [{"op": "replace", "id": "two", "source": "y"}]}, ctx
    )
    assert [type(d).__name__ for d in shown] == ["DiffDescriptor"]
    assert notebook.read_bytes() == before
