"""notebook_read → notebook_edit on notebooks nobody here wrote (papermill's test notebooks):
the result is nbformat-valid, ids are assigned to old notebooks, and untouched cells keep
their bytes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
import papermill
import pytest

from shard_core.contracts import ToolContext
from shard_core.types import JsonObject, ToolResult
from shard_kernel.notebook_tools import NotebookSetup
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool
from shard_kernel.notebook_tools.read_tool import NotebookReadTool
from shard_kernel.notebook_tools.spans import cell_spans

FOUND = sorted((Path(papermill.__file__).parent / "tests" / "notebooks").rglob("*.ipynb"))


def test_there_are_real_notebooks_to_try() -> None:
    assert len(FOUND) >= 10


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = Path(os.path.realpath(tmp_path))
    return ToolContext(cwd=ws, roots=[ws], agent_id="a", session_id="s", call_id="c")


async def _edit(ctx: ToolContext, path: str, *ops: JsonObject) -> ToolResult:
    return await NotebookEditTool(NotebookSetup()).execute(
        {"path": path, "operations": list(ops)}, ctx
    )


def _cell_texts(text: str) -> list[str]:
    spans = cell_spans(text)
    assert spans is not None
    return [text[a:b] for a, b in spans.cells]


def _outside_cells(text: str) -> tuple[str, str]:
    spans = cell_spans(text)
    assert spans is not None
    return text[: spans.open], text[spans.close :]


@pytest.mark.parametrize("source", FOUND, ids=lambda p: p.name)
async def test_read_edit_round_trip(source: Path, ctx: ToolContext) -> None:
    target = ctx.cwd / "nb.ipynb"
    shutil.copyfile(source, target)
    original = json.loads(source.read_text(encoding="utf-8"))

    read = await NotebookReadTool(NotebookSetup()).execute({"path": "nb.ipynb"}, ctx)
    assert not read.is_error, read.text
    shown_ids = [line.split(" · ")[1].removeprefix("id ") for line in read.text.splitlines()
                 if line.startswith("## cell ")]  # fmt: skip
    assert len(shown_ids) == len(original["cells"])

    # 1. The first edit of an old notebook: the ids notebook_read showed are the ones it gets.
    first = await _edit(
        ctx, "nb.ipynb", {"op": "insert", "after": shown_ids[0], "source": "print('added')"}
    )
    assert not first.is_error, first.text
    saved = json.loads(target.read_text(encoding="utf-8"))
    nbformat.validate(nbformat.from_dict(saved))
    assert saved["nbformat_minor"] >= 5
    kept = [c for c in saved["cells"] if c["id"] in shown_ids]
    assert [c["id"] for c in kept] == shown_ids
    assert [{k: v for k, v in c.items() if k != "id"} for c in kept] == original["cells"]
    assert saved["metadata"] == original["metadata"]

    # 2. A later edit: every untouched cell and everything around the cells keep their bytes.
    before = target.read_text(encoding="utf-8")
    replaced = shown_ids[-1]
    second = await _edit(ctx, "nb.ipynb", {"op": "replace", "id": replaced, "source": "x = 2\ny"})
    assert not second.is_error, second.text
    after = target.read_text(encoding="utf-8")
    nbformat.validate(nbformat.reads(after, as_version=4))
    old_cells, new_cells = _cell_texts(before), _cell_texts(after)
    at = [c["id"] for c in saved["cells"]].index(replaced)
    assert new_cells[:at] + new_cells[at + 1 :] == old_cells[:at] + old_cells[at + 1 :]
    assert new_cells[at] != old_cells[at]
    assert _outside_cells(after) == _outside_cells(before)
    changed = json.loads(after)["cells"][at]
    assert "".join(changed["source"]) == "x = 2\ny"
