"""notebook_read: outputs summarised for the model (text, tracebacks, images with caps, HTML and
widgets as a line) and paging by the output budget."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import nbformat
import pytest

from shard_core.contracts import ToolContext
from shard_core.types import ImageBlock, TextBlock, ToolResult
from shard_kernel.notebook_tools import NotebookSetup
from shard_kernel.notebook_tools.outputs import MAX_IMAGE_BYTES, MAX_IMAGES
from shard_kernel.notebook_tools.read_tool import NotebookReadTool

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).decode()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = Path(os.path.realpath(tmp_path))
    return ToolContext(cwd=ws, roots=[ws], agent_id="a", session_id="s", call_id="c")


def write(ctx: ToolContext, *cells: nbformat.NotebookNode) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nbformat.write(nb, ctx.cwd / "nb.ipynb")


async def read(ctx: ToolContext, **extra: object) -> ToolResult:
    return await NotebookReadTool(NotebookSetup()).execute({"path": "nb.ipynb", **extra}, ctx)


def code(cell_id: str, source: str, *outputs: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, id=cell_id, execution_count=3)
    cell.outputs = list(outputs)
    return cell


async def test_text_errors_html_widgets_and_an_image(ctx: ToolContext) -> None:
    out = nbformat.v4.new_output
    write(
        ctx,
        nbformat.v4.new_markdown_cell("# Title", id="md"),
        code(
            "c1",
            "run()",
            out("stream", name="stdout", text="hello\n"),
            out(
                "error",
                ename="ValueError",
                evalue="bad",
                traceback=["\x1b[31mTraceback\x1b[0m", "ValueError: bad"],
            ),
            out("display_data", {"text/html": "<table><tr><td>1</td></tr></table>"}),
            out(
                "display_data",
                {
                    "application/vnd.jupyter.widget-view+json": {"model_id": "m1"},
                    "text/plain": "IntSlider(value=3)",
                },
            ),
            out(
                "display_data",
                {"image/png": PNG, "text/plain": "<Figure size 640x480 with 1 Axes>"},
            ),
            out("execute_result", {"text/plain": "42"}, execution_count=3),
        ),
    )
    result = await read(ctx)
    assert not result.is_error
    text = result.content[0]
    assert isinstance(text, TextBlock)
    assert text.text.splitlines() == [
        "nb.ipynb: 2 cells",
        "",
        "## cell 0 · id md · markdown",
        "# Title",
        "",
        "## cell 1 · id c1 · code · [3]",
        "run()",
        "### outputs",
        "[stdout]",
        "hello",
        "",
        "[error] Traceback",
        "ValueError: bad",
        "[display_data] (HTML, as text) 1",
        "[display_data] (an interactive widget, model m1; shown in the notebook only)",
        "IntSlider(value=3)",
        "[display_data] (image/png, 72 bytes: attached as image 1)",
        "[result 3] 42",
    ]
    assert result.content[1:] == [ImageBlock(media_type="image/png", data=PNG)]


async def test_image_caps(ctx: ToolContext) -> None:
    big = base64.b64encode(b"\x89PNG" + b"\x00" * MAX_IMAGE_BYTES).decode()
    images = [nbformat.v4.new_output("display_data", {"image/png": PNG}) for _ in range(6)]
    huge = nbformat.v4.new_output("display_data", {"image/png": big})
    write(ctx, code("c1", "plots()", huge, *images))
    result = await read(ctx)
    attached = [c for c in result.content if isinstance(c, ImageBlock)]
    assert len(attached) == MAX_IMAGES
    assert "over the 3,750,000-byte cap; not attached" in result.text
    assert result.text.count(f"not attached: {MAX_IMAGES} images per result") == 2


async def test_pages_by_budget_and_by_cells(ctx: ToolContext) -> None:
    long_output = nbformat.v4.new_output("stream", name="stdout", text="x" * 5_000 + "\n")
    write(ctx, *[code(f"c{n}", f"print({n})", long_output) for n in range(20)])
    first = await read(ctx)
    assert "more cells not shown (output budget); call notebook_read again with start=" in (
        first.text
    )
    shown = first.details["shown"]
    assert 0 < shown < 20
    second = await read(ctx, start=shown, limit=2)
    assert second.text.splitlines()[2] == f"## cell {shown} · id c{shown} · code · [3]"
    assert f"call again with start={shown + 2}" in second.text
    picked = await read(ctx, cells=["c19", "c2"])
    assert [line for line in picked.text.splitlines() if line.startswith("## cell")] == [
        "## cell 2 · id c2 · code · [3]",
        "## cell 19 · id c19 · code · [3]",
    ]
    missing = await read(ctx, cells=["nope"])
    assert missing.is_error
    assert "no cell with id 'nope'" in missing.text
