"""LsTool: an indented, directories-first tree with ignore rules, depth and an entry cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import LsTool
from shard_core.types.render import TreeDescriptor, TreeNode
from tests.unit.tools.conftest import run, write_tree

TREE = {
    "b.txt": "",
    "A.md": "",
    "src/main.py": "",
    "src/lib/deep/x.py": "",
    ".env": "",
    ".gitignore": "*.log\n",
    "trace.log": "",
    ".git/HEAD": "",
}


@pytest.fixture
def tree(workspace: Path) -> Path:
    write_tree(workspace, TREE)
    return workspace


@pytest.mark.usefixtures("tree")
async def test_default_listing(ctx: ToolContext) -> None:
    result = await run(LsTool(), ctx)
    assert result.text == "./\n  src/\n    lib/\n    main.py\n  A.md\n  b.txt"
    assert result.render == [
        TreeDescriptor(
            root=TreeNode(
                label=".",
                is_dir=True,
                children=[
                    TreeNode(
                        label="src",
                        is_dir=True,
                        children=[TreeNode(label="lib", is_dir=True), TreeNode(label="main.py")],
                    ),
                    TreeNode(label="A.md"),
                    TreeNode(label="b.txt"),
                ],
            )
        )
    ]
    assert result.details == {"path": ".", "entries": 5, "shown": 5, "truncated": False}


@pytest.mark.usefixtures("tree")
async def test_all_shows_dotfiles_but_never_git(ctx: ToolContext) -> None:
    result = await run(LsTool(), ctx, depth=1, all=True)
    assert result.text == "./\n  src/\n  .env\n  .gitignore\n  A.md\n  b.txt"


@pytest.mark.usefixtures("tree")
async def test_depth_and_subdirectory(ctx: ToolContext) -> None:
    result = await run(LsTool(), ctx, path="src", depth=5)
    assert result.text == "src/\n  lib/\n    deep/\n      x.py\n  main.py"


@pytest.mark.usefixtures("tree")
async def test_entries_are_capped_with_a_count(ctx: ToolContext) -> None:
    result = await run(LsTool(max_entries=2), ctx)
    assert result.text == (
        "./\n  src/\n    lib/\n\n[3 more entries not shown; list a subdirectory or lower depth]"
    )
    assert result.details == {"path": ".", "entries": 5, "shown": 2, "truncated": True}


async def test_symlinks_are_shown_not_entered(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "out").symlink_to(outside)
    result = await run(LsTool(), ctx)
    assert result.text == f"./\n  out -> {outside}"


async def test_empty_file_and_missing(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "empty").mkdir()
    (workspace / "f.txt").write_text("")
    empty = await run(LsTool(), ctx, path="empty")
    file = await run(LsTool(), ctx, path="f.txt")
    missing = await run(LsTool(), ctx, path="nope")
    deep = await run(LsTool(), ctx, depth=6)
    assert empty.text == "empty/ (empty)"
    assert (file.is_error, file.text) == (True, "f.txt is a file; use read")
    assert (missing.is_error, missing.text) == (True, "nope does not exist")
    assert deep.text == "invalid ls input: 'depth' must be at most 5, got 6"
