"""read, edit and write through `ctx.files` (an editor's buffers, as `shard acp` offers them):
the buffer is what is read, changed and written; the disk when the editor does not offer it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.tools.edit import EditTool
from shard_core.tools.read import ReadTool
from shard_core.tools.write import WriteTool
from tests.unit.tools.conftest import run


@dataclass
class Buffers:
    """An editor's open buffers; `writes` False: it offers reading only."""

    texts: dict[Path, str] = field(default_factory=dict[Path, str])
    writes: bool = True

    async def read_text(self, path: Path) -> str | None:
        return self.texts.get(path)

    async def write_text(self, path: Path, text: str) -> bool:
        if not self.writes:
            return False
        self.texts[path] = text
        return True


async def test_read_and_edit_use_the_buffer_and_leave_the_disk(
    workspace: Path, ctx: ToolContext
) -> None:
    path = workspace / "calc.py"
    path.write_text("def add(a, b): return a - b\n")
    buffers = Buffers({path: "# unsaved\ndef add(a, b): return a - b\n"})
    ctx = replace(ctx, files=buffers)
    read = await run(ReadTool(), ctx, path="calc.py")
    assert "# unsaved" in read.text
    edited = await run(EditTool(), ctx, path="calc.py", old_string="a - b", new_string="a + b")
    assert not edited.is_error, edited.text
    assert buffers.texts[path] == "# unsaved\ndef add(a, b): return a + b\n"
    assert path.read_text() == "def add(a, b): return a - b\n"


async def test_an_editor_that_only_reads_leaves_writing_to_the_disk(
    workspace: Path, ctx: ToolContext
) -> None:
    path = workspace / "notes.txt"
    path.write_text("old\n")
    ctx = replace(ctx, files=Buffers({path: "buffer\n"}, writes=False))
    result = await run(WriteTool(), ctx, path="notes.txt", content="new\n")
    assert not result.is_error, result.text
    assert path.read_text() == "new\n"
    assert "-buffer" in "\n".join(result.render[0].hunks[0].lines)  # pyright: ignore[reportAttributeAccessIssue]
