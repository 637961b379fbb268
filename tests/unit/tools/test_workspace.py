"""Containment: every tool refuses paths that leave the workspace, however they are spelled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shard_core.contracts import Tool, ToolContext
from shard_core.tools import EditTool, FindTool, GrepTool, LsTool, ReadTool, WriteTool
from shard_core.tools.workspace import display_path, resolve_in_workspace
from shard_core.types import ToolResult
from tests.unit.tools.conftest import run

# Each tool with the input it gets and whether its path names a file or a directory.
FILE_TOOLS: list[tuple[Tool, dict[str, object]]] = [
    (ReadTool(), {}),
    (WriteTool(), {"content": "pwned\n"}),
    (EditTool(), {"old_string": "top secret", "new_string": "pwned"}),
]
DIR_TOOLS: list[tuple[Tool, dict[str, object]]] = [
    (LsTool(), {}),
    (FindTool(), {"pattern": "*"}),
    (GrepTool(), {"pattern": "secret"}),
    (GrepTool(use_ripgrep=False), {"pattern": "secret"}),
]


def _spellings(workspace: Path, outside: Path, name: str) -> dict[str, tuple[str, Path]]:
    """Ways to name `outside/name` from the workspace, with the real path each resolves to."""
    target = outside / name if name else outside
    (workspace / "link").symlink_to(target)
    relative = os.path.relpath(target, workspace)
    return {
        "dotdot": (relative, target),
        "absolute": (str(target), target),
        "symlink": ("link", target),
    }


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize(("tool", "extra"), FILE_TOOLS, ids=lambda t: getattr(t, "name", ""))
async def test_file_tools_refuse_paths_outside(
    tool: Tool, extra: dict[str, object], how: str, workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    raw, real = _spellings(workspace, outside, "secret.txt")[how]
    result = await run(tool, ctx, path=raw, **extra)
    assert result.is_error
    assert result.text == f"path escapes the workspace: {real} (resolved from {raw!r})"
    assert result.details == {"path": str(real)}
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize(("tool", "extra"), DIR_TOOLS, ids=lambda t: getattr(t, "name", ""))
async def test_directory_tools_refuse_paths_outside(
    tool: Tool, extra: dict[str, object], how: str, workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    raw, real = _spellings(workspace, outside, "")[how]
    result = await run(tool, ctx, path=raw, **extra)
    assert result.is_error
    assert result.text == f"path escapes the workspace: {real} (resolved from {raw!r})"
    assert "top secret" not in result.text


async def test_write_refuses_a_new_file_below_an_escaping_parent(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    result = await run(WriteTool(), ctx, path="new/../../outside/new.txt", content="x")
    assert result.is_error
    assert result.text.startswith(f"path escapes the workspace: {outside / 'new.txt'}")
    assert not (workspace / "new").exists()
    assert not (outside / "new.txt").exists()


async def test_write_refuses_a_new_file_below_a_symlinked_directory(
    workspace: Path, outside: Path, ctx: ToolContext
) -> None:
    (workspace / "out").symlink_to(outside)
    result = await run(WriteTool(), ctx, path="out/sub/new.txt", content="x")
    assert result.is_error
    assert str(outside / "sub" / "new.txt") in result.text
    assert not (outside / "sub").exists()


def test_a_symlink_that_stays_inside_is_allowed(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve_in_workspace("alias.txt", ctx) == workspace / "real.txt"


def test_dotdot_that_comes_back_inside_is_allowed(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a").mkdir()
    assert resolve_in_workspace(f"a/../../{workspace.name}/a", ctx) == workspace / "a"


def test_home_is_expanded_and_refused(ctx: ToolContext) -> None:
    result = resolve_in_workspace("~/notes.txt", ctx)
    assert isinstance(result, ToolResult)
    assert result.text.startswith("path escapes the workspace: ")
    assert result.text.endswith("notes.txt (resolved from '~/notes.txt')")


@pytest.mark.parametrize(
    ("raw", "message"),
    [("", "path must not be empty"), ("a\x00b", "path contains a NUL byte: 'a\\x00b'")],
)
def test_unusable_paths_are_refused(raw: str, message: str, ctx: ToolContext) -> None:
    result = resolve_in_workspace(raw, ctx)
    assert isinstance(result, ToolResult)
    assert result.text == message


def test_any_root_admits_a_path(tmp_path: Path, workspace: Path) -> None:
    second = tmp_path / "second"
    second.mkdir()
    ctx = ToolContext(
        cwd=workspace, roots=[workspace, second], agent_id="a", session_id="s", call_id="c"
    )
    resolved = resolve_in_workspace(str(second / "f.txt"), ctx)
    assert resolved == Path(os.path.realpath(second)) / "f.txt"
    assert display_path(Path(os.path.realpath(second)) / "f.txt", ctx).endswith("second/f.txt")


def test_display_path_is_relative_to_the_cwd(workspace: Path, ctx: ToolContext) -> None:
    assert display_path(workspace, ctx) == "."
    assert display_path(workspace / "a" / "b.py", ctx) == "a/b.py"
