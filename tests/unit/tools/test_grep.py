"""GrepTool: both engines (ripgrep and the Python fallback) give the same, bounded answers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import GrepTool
from shard_core.tools.ripgrep import find_rg
from shard_core.types.render import TextDescriptor
from tests.unit.tools.conftest import run, write_tree

TREE = {
    "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
    "src/util.py": "def helper():\n    return 'Main'\n",
    "a.py": "main = 1\n",
    "notes.md": "the main idea\n",
    ".github/ci.yml": "run: main\n",
    ".gitignore": "build/\n*.log\n",
    "build/gen.py": "def main(): pass\n",
    "debug.log": "main failed\n",
    "sub/.gitignore": "!keep.log\n",
    "sub/keep.log": "main kept\n",
    ".git/config": "main = refs\n",
}


@pytest.fixture(params=["ripgrep", "python"])
def grep(request: pytest.FixtureRequest) -> GrepTool:
    tool = GrepTool(use_ripgrep=request.param == "ripgrep")
    assert (tool.rg is not None) == (request.param == "ripgrep"), (
        "the ripgrep wheel's rg is missing"
    )
    return tool


@pytest.fixture
def tree(workspace: Path) -> Path:
    write_tree(workspace, TREE)
    return workspace


@pytest.mark.usefixtures("tree")
async def test_matches_respect_ignore_files_outside_git(grep: GrepTool, ctx: ToolContext) -> None:
    result = await run(grep, ctx, pattern="main")
    assert not result.is_error
    assert result.text == "\n".join(
        [
            ".github/ci.yml:1:run: main",
            "a.py:1:main = 1",
            "notes.md:1:the main idea",
            "src/app.py:3:def main():",
            "sub/keep.log:1:main kept",
        ]
    )
    assert result.render == [TextDescriptor(text=result.text, format="code")]
    engine = "ripgrep" if grep.rg else "python"
    assert result.details == {
        "path": ".",
        "engine": engine,
        "matches": 5,
        "shown": 5,
        "truncated": False,
    }


@pytest.mark.usefixtures("tree")
async def test_glob_case_and_literal(grep: GrepTool, ctx: ToolContext) -> None:
    by_glob = await run(grep, ctx, pattern="main", glob="*.py", ignore_case=True)
    assert by_glob.text == "\n".join(
        ["a.py:1:main = 1", "src/app.py:3:def main():", "src/util.py:2:    return 'Main'"]
    )
    regex = await run(grep, ctx, pattern="os.getcwd()", path="src")
    literal = await run(grep, ctx, pattern="os.g.tcwd", literal=True, path="src")
    assert regex.text == "src/app.py:4:    return os.getcwd()"
    assert literal.text == "no matches for 'os.g.tcwd' in src"
    assert not literal.is_error


async def test_context_lines_and_separators(
    grep: GrepTool, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "f.txt").write_text("a\nhit 1\nb\nc\nd\ne\nhit 2\nf\n")
    result = await run(grep, ctx, pattern="hit", context=1)
    assert result.text == "\n".join(
        ["f.txt-1-a", "f.txt:2:hit 1", "f.txt-3-b", "--", "f.txt-6-e", "f.txt:7:hit 2", "f.txt-8-f"]
    )


async def test_results_are_capped_with_a_count(
    grep: GrepTool, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "many.txt").write_text("".join(f"x{i}\n" for i in range(10)))
    result = await run(grep, ctx, pattern="x", max_results=4, context=1)
    assert result.text == "\n".join(
        [
            "many.txt:1:x0",
            "many.txt:2:x1",
            "many.txt:3:x2",
            "many.txt:4:x3",
            "",
            "[6 more matches not shown; narrow the pattern, path or glob]",
        ]
    )
    assert result.details["truncated"] is True
    assert (result.details["matches"], result.details["shown"]) == (10, 4)


async def test_trailing_context_of_the_last_shown_match_is_kept(
    grep: GrepTool, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "t.txt").write_text("hit\nafter\ngap\ngap\nbefore\nhit\n")
    result = await run(grep, ctx, pattern="hit", max_results=1, context=1)
    assert result.text.split("\n\n")[0] == "t.txt:1:hit\nt.txt-2-after"


async def test_single_file_binary_and_long_lines(
    grep: GrepTool, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "bin.dat").write_bytes(b"needle\x00\x01")
    (workspace / "wide.js").write_text("needle" + "z" * 1000 + "\n")
    result = await run(grep, ctx, pattern="needle")
    assert result.text == f"wide.js:1:needle{'z' * 494}… [1006 chars]"
    single = await run(grep, ctx, pattern="needle", path="wide.js")
    assert single.details["matches"] == 1


async def test_symlinked_directories_are_not_followed(
    grep: GrepTool, workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "out").symlink_to(outside)
    result = await run(grep, ctx, pattern="secret")
    assert result.text == "no matches for 'secret' in ."


async def test_invalid_regex_is_a_clear_error(
    grep: GrepTool, workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "f.txt").write_text("x\n")
    result = await run(grep, ctx, pattern="foo(")
    assert result.is_error
    assert result.text.startswith("invalid regex 'foo(':")


async def test_missing_path_is_an_error(grep: GrepTool, ctx: ToolContext) -> None:
    result = await run(grep, ctx, pattern="x", path="nowhere")
    assert (result.is_error, result.text) == (True, "path not found: nowhere")


async def test_missing_rg_falls_back_to_python(
    workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("shard_core.tools.grep.find_rg", lambda: None)
    (workspace / "f.txt").write_text("needle\n")
    result = await run(GrepTool(), ctx, pattern="needle")
    assert (result.text, result.details["engine"]) == ("f.txt:1:needle", "python")


def test_rg_is_found_beside_the_interpreter_without_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    found = find_rg()
    assert found == str(Path(sys.executable).parent / "rg")
