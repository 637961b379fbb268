"""Fixtures for the built-in tools: a workspace in tmp_path, a directory outside it, a context."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shard_core.contracts import Tool, ToolContext
from shard_core.types import JsonObject, ToolResult


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace holding a file no tool may touch."""
    other = tmp_path / "outside"
    other.mkdir()
    (other / "secret.txt").write_text("top secret\n")
    return Path(os.path.realpath(other))


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(
        cwd=workspace, roots=[workspace], agent_id="agent", session_id="session", call_id="call"
    )


async def run(tool: Tool, ctx: ToolContext, **input: object) -> ToolResult:
    """Execute `tool` with keyword arguments as its JSON input."""
    payload: JsonObject = dict(input)
    return await tool.execute(payload, ctx)


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Create `files` (relative path -> text) below `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
