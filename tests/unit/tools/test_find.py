"""FindTool and its glob translation: sorted, gitignore-aware, capped file lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import FindTool
from shard_core.tools.globs import glob_regex
from shard_core.types.render import TreeDescriptor, TreeNode
from tests.unit.tools.conftest import run, write_tree

TREE = {
    "setup.py": "",
    "README.md": "",
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "",
    "src/main.py": "",
    "src/types.pyi": "",
    ".github/tool.py": "",
    ".gitignore": "dist/\n",
    "dist/built.py": "",
    ".git/hooks/pre.py": "",
}


@pytest.fixture
def tree(workspace: Path) -> Path:
    write_tree(workspace, TREE)
    return workspace


@pytest.mark.usefixtures("tree")
async def test_double_star_lists_sorted_files_with_a_tree(ctx: ToolContext) -> None:
    result = await run(FindTool(), ctx, pattern="src/**/*.py")
    assert result.text == "src/main.py\nsrc/pkg/__init__.py\nsrc/pkg/core.py"
    assert result.render == [
        TreeDescriptor(
            root=TreeNode(
                label=".",
                is_dir=True,
                children=[
                    TreeNode(
                        label="src",
                        is_dir=True,
                        children=[
                            TreeNode(label="main.py"),
                            TreeNode(
                                label="pkg",
                                is_dir=True,
                                children=[TreeNode(label="__init__.py"), TreeNode(label="core.py")],
                            ),
                        ],
                    )
                ],
            )
        )
    ]
    assert result.details == {
        "path": ".",
        "pattern": "src/**/*.py",
        "total": 3,
        "shown": 3,
        "truncated": False,
    }


@pytest.mark.usefixtures("tree")
async def test_a_bare_name_pattern_matches_at_any_depth(ctx: ToolContext) -> None:
    result = await run(FindTool(), ctx, pattern="*.py")
    assert result.text.split("\n") == [
        ".github/tool.py",
        "setup.py",
        "src/main.py",
        "src/pkg/__init__.py",
        "src/pkg/core.py",
    ]


@pytest.mark.usefixtures("tree")
async def test_path_braces_and_anchoring(ctx: ToolContext) -> None:
    anchored = await run(FindTool(), ctx, pattern="*.{py,pyi}", path="src")
    assert anchored.text == "src/main.py\nsrc/pkg/__init__.py\nsrc/pkg/core.py\nsrc/types.pyi"
    top_only = await run(FindTool(), ctx, pattern="pkg/*.py", path="src")
    assert top_only.text == "src/pkg/__init__.py\nsrc/pkg/core.py"


@pytest.mark.usefixtures("tree")
async def test_cap_and_no_match(ctx: ToolContext) -> None:
    capped = await run(FindTool(), ctx, pattern="**/*.py", max_results=2)
    assert capped.text == (
        ".github/tool.py\nsetup.py\n\n[3 more files not shown; narrow the pattern or path]"
    )
    assert capped.details["truncated"] is True
    none = await run(FindTool(), ctx, pattern="*.rs")
    assert (none.is_error, none.text) == (False, "no files match '*.rs' in .")


async def test_symlinked_directories_are_not_entered(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "out").symlink_to(outside)
    result = await run(FindTool(), ctx, pattern="**/*.txt")
    assert result.text == "no files match '**/*.txt' in ."


@pytest.mark.usefixtures("tree")
async def test_path_must_be_a_directory(ctx: ToolContext) -> None:
    file = await run(FindTool(), ctx, pattern="*", path="setup.py")
    missing = await run(FindTool(), ctx, pattern="*", path="nope")
    assert (file.text, missing.text) == ("setup.py is not a directory", "nope does not exist")


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.py", ["a.py", "x/y/a.py", ".hidden.py"], ["a.pyc", "a.py/b"]),
        ("src/*.py", ["src/a.py"], ["src/x/a.py", "a.py"]),
        ("src/**/*.py", ["src/a.py", "src/x/y/a.py"], ["lib/a.py"]),
        ("src/**", ["src/a", "src/x/y"], ["srcx/a"]),
        ("?.txt", ["a.txt"], ["ab.txt"]),
        ("[!a]*.txt", ["b.txt"], ["a.txt"]),
        ("*.{ts,tsx}", ["a.ts", "b/c.tsx"], ["a.t", "a.js"]),
        ("{src,lib}/**/*.{py,pyi}", ["lib/a.pyi", "src/b/c.py"], ["doc/a.py"]),
        ("a+b(1).txt", ["a+b(1).txt"], ["aab1.txt"]),
        ("unclosed[.txt", ["unclosed[.txt"], []),
    ],
)
def test_glob_translation(pattern: str, matches: list[str], misses: list[str]) -> None:
    regex = glob_regex(pattern)
    assert [p for p in matches if not regex.match(p)] == []
    assert [p for p in misses if regex.match(p)] == []


async def test_a_line_that_is_no_pattern_is_skipped_as_git_skips_it(
    workspace: Path, ctx: ToolContext
) -> None:
    """A lone `!`, a trailing backslash or a bad range in a nested ignore file failed the whole
    walk (`find failed: GitIgnorePatternError`); the file's other rules still apply."""
    write_tree(
        workspace,
        {
            "a.py": "",
            "vendor/.gitignore": "build/\n!\nold\\\n[z-a]\n",
            "vendor/lib.py": "",
            "vendor/build/out.py": "",
        },
    )
    result = await run(FindTool(), ctx, pattern="**/*.py")
    assert not result.is_error, result.text
    assert result.text == "a.py\nvendor/lib.py"
