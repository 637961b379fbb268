"""propose_cell_edit: a CellEditDescriptor against the cell as the notebook holds it; nothing is
written, and every bad input is a clear error result."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import nbformat
import pytest

from shard_core.contracts import ToolContext
from shard_core.protocol.commands import PromptCommand
from shard_core.types import ImageBlock, JsonObject, ToolResult
from shard_core.types.render import CellEditDescriptor, Hunk
from shard_kernel.notebook_tools import NotebookSetup
from shard_kernel.notebook_tools.propose_tool import ProposeCellEditTool
from shard_kernel.terminal.render import TerminalRenderer


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = Path(os.path.realpath(tmp_path / "ws"))
    ws.mkdir()
    return ToolContext(cwd=ws, roots=[ws], agent_id="a", session_id="s", call_id="call_0_0")


@pytest.fixture
def notebook(ctx: ToolContext) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1\nprint(x / 0)", id="boom")]
    path = ctx.cwd / "n.ipynb"
    nbformat.write(nb, path)
    return path


def _run(ctx: ToolContext, **call: object) -> ToolResult:
    tool = ProposeCellEditTool(NotebookSetup(shared_documents=False))
    return asyncio.run(tool.execute(dict[str, object](call), ctx))  # type: ignore[arg-type]


def test_a_proposal_is_a_cell_diff_and_writes_nothing(ctx: ToolContext, notebook: Path) -> None:
    before = notebook.read_bytes()
    result = _run(ctx, path="n.ipynb", cell_id="boom", source="x = 1\nprint(x / 1)", summary="/1")

    assert not result.is_error, result.text
    [descriptor] = result.render
    assert isinstance(descriptor, CellEditDescriptor)
    assert descriptor.model_dump(exclude={"proposal_id"}) == {
        "kind": "cell_edit",
        "version": 1,
        "path": "n.ipynb",
        "file": str(notebook),
        "cell_id": "boom",
        "cell_type": "code",
        "base": "x = 1\nprint(x / 0)",
        "source": "x = 1\nprint(x / 1)",
        "hunks": [
            Hunk(
                old_start=1,
                old_lines=2,
                new_start=1,
                new_lines=2,
                lines=[" x = 1", "-print(x / 0)", "+print(x / 1)"],
            ).model_dump()
        ],
        "summary": "/1",
    }
    assert descriptor.proposal_id.startswith("call_0_0-")
    assert "nothing is written until they accept" in result.text.lower()
    assert notebook.read_bytes() == before
    # the wire form round-trips (the JSONL, every client)
    wire = descriptor.model_dump_json()
    assert CellEditDescriptor.model_validate_json(wire) == descriptor


def test_a_cell_not_in_the_saved_notebook_has_no_base(ctx: ToolContext, notebook: Path) -> None:
    result = _run(ctx, path="n.ipynb", cell_id="unsaved", source="y = 2")

    assert not result.is_error
    [descriptor] = result.render
    assert isinstance(descriptor, CellEditDescriptor)
    assert descriptor.base is None
    assert "not in the saved n.ipynb" in result.text


@pytest.mark.parametrize(
    ("call", "says"),
    [
        ({"path": "n.ipynb", "cell_id": "boom", "source": "x = 1\nprint(x / 0)"}, "already reads"),
        ({"path": "missing.ipynb", "cell_id": "boom", "source": "y"}, "does not exist"),
        ({"path": "notes.txt", "cell_id": "boom", "source": "y"}, "is not a notebook"),
        ({"path": "../outside.ipynb", "cell_id": "boom", "source": "y"}, "outside"),
        ({"path": "n.ipynb", "source": "y"}, "cell_id"),
    ],
)
def test_bad_input_is_a_clear_error(
    ctx: ToolContext, notebook: Path, call: JsonObject, says: str
) -> None:
    (ctx.cwd.parent / "outside.ipynb").write_text(notebook.read_text())
    result = _run(ctx, **call)

    assert result.is_error
    assert says in result.text, result.text


def test_a_prompt_carries_at_most_eight_images() -> None:
    image = ImageBlock(media_type="image/png", data="iVBORw0KGgo=")
    assert len(PromptCommand(text="see", images=[image] * 8).images) == 8
    with pytest.raises(ValueError, match="9 images: at most 8 go with a prompt"):
        PromptCommand(text="see", images=[image] * 9)


def test_a_prompts_image_over_the_providers_limit_or_not_base64_is_refused_with_why() -> None:
    big = ImageBlock(media_type="image/png", data="A" * 5_000_000)  # 3.75 MB decoded
    assert len(PromptCommand(text="see", images=[big]).images) == 1  # at the limit: taken
    over = ImageBlock(media_type="image/png", data="A" * 5_000_004)
    with pytest.raises(ValueError, match=r"image 2: 3\.8 MB: at most 3\.75 MB goes with a prompt"):
        PromptCommand(text="see", images=[big, over])
    with pytest.raises(ValueError, match="image 1: the data is not base64"):
        PromptCommand(text="see", images=[ImageBlock(media_type="image/png", data="not base64!")])


def test_the_terminal_shows_a_proposal_as_a_diff_not_applied(
    ctx: ToolContext, notebook: Path
) -> None:
    result = _run(ctx, path="n.ipynb", cell_id="boom", source="x = 1\nprint(x / 1)", summary="/1")
    [descriptor] = result.render

    rows = TerminalRenderer(io.StringIO(), color=False).descriptor(descriptor)

    assert rows == [
        "/1",
        "--- n.ipynb · cell boom (proposed, not applied) (modified)",
        "@@ -1,2 +1,2 @@",
        " x = 1",
        "-print(x / 0)",
        "+print(x / 1)",
    ]
