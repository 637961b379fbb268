"""Tool previews: what edit, write and bash would do, shown before they run — nothing changed."""

from __future__ import annotations

from pathlib import Path

from shard_core.contracts import PreviewableTool, ToolContext
from shard_core.tools import BashTool, EditTool, ReadTool, WriteTool
from shard_core.types.render import DiffDescriptor, Hunk, TextDescriptor

SOURCE = "def greet(name):\n    print('hi', name)\n    return name\n"


def test_the_mutating_tools_preview_and_the_read_only_ones_do_not() -> None:
    assert [isinstance(t, PreviewableTool) for t in (EditTool(), WriteTool(), BashTool())] == [
        True,
        True,
        True,
    ]
    assert not isinstance(ReadTool(), PreviewableTool)


async def test_an_edit_previews_its_diff_and_writes_nothing(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "greet.py").write_text(SOURCE)
    edit = {"path": "greet.py", "old_string": "'hi'", "new_string": "'hello'"}

    preview = await EditTool().preview(edit, ctx)

    assert (workspace / "greet.py").read_text() == SOURCE
    assert preview == [
        DiffDescriptor(
            path="greet.py",
            status="modified",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=3,
                    new_start=1,
                    new_lines=3,
                    lines=[
                        " def greet(name):",
                        "-    print('hi', name)",
                        "+    print('hello', name)",
                        "     return name",
                    ],
                )
            ],
        )
    ]
    result = await EditTool().execute(edit, ctx)
    assert result.render == preview  # the preview is the diff the edit then makes


async def test_an_edit_that_would_fail_has_no_preview(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "greet.py").write_text(SOURCE)
    edit = EditTool()
    missing = {"path": "greet.py", "old_string": "'bye'", "new_string": "'hello'"}
    assert await edit.preview(missing, ctx) == []
    assert await edit.preview({"path": "nope.py", "old_string": "a", "new_string": "b"}, ctx) == []
    escaping = {"path": str(outside / "secret.txt"), "old_string": "top", "new_string": "x"}
    assert await edit.preview(escaping, ctx) == []  # never reads outside the workspace
    assert await edit.preview({"path": "greet.py"}, ctx) == []
    assert await edit.preview({"path": 3, "old_string": "a", "new_string": "b"}, ctx) == []
    assert (workspace / "greet.py").read_text() == SOURCE


async def test_a_new_file_previews_as_all_added(workspace: Path, ctx: ToolContext) -> None:
    preview = await WriteTool().preview({"path": "pkg/new.py", "content": "a\nb\n"}, ctx)

    assert not (workspace / "pkg").exists()
    assert preview == [
        DiffDescriptor(
            path="pkg/new.py",
            status="created",
            hunks=[Hunk(old_start=0, old_lines=0, new_start=1, new_lines=2, lines=["+a", "+b"])],
        )
    ]


async def test_an_overwrite_previews_against_the_current_file(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\n")

    preview = await WriteTool().preview({"path": "notes.txt", "content": "one\n2\n"}, ctx)

    assert (workspace / "notes.txt").read_text() == "one\ntwo\n"
    assert preview == [
        DiffDescriptor(
            path="notes.txt",
            status="modified",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=2,
                    new_start=1,
                    new_lines=2,
                    lines=[" one", "-two", "+2"],
                )
            ],
        )
    ]
    escaping = {"path": str(outside / "secret.txt"), "content": "x"}
    assert await WriteTool().preview(escaping, ctx) == []
    assert await WriteTool().preview({"path": ".", "content": "x"}, ctx) == []


async def test_bash_previews_its_command(ctx: ToolContext) -> None:
    command = "pytest -q && git commit -am 'fix'"
    assert await BashTool().preview({"command": command}, ctx) == [
        TextDescriptor(text=command, format="code", language="bash")
    ]
    assert await BashTool().preview({"command": ""}, ctx) == []
