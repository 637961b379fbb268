"""Fixtures for gate tests: a real workspace, a temp SHARD_HOME, queries and a recording log."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from shard_core.contracts import PermissionQuery
from tests.unit.engine.permissions._support import READ_ONLY, Log

Query = Callable[..., PermissionQuery]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The workspace (the agent's cwd), as a real path."""
    root = tmp_path / "ws"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "shard-home"
    monkeypatch.setenv("SHARD_HOME", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return path


@pytest.fixture
def query(ws: Path) -> Query:
    def make(tool: str, read_only: bool | None = None, **input: object) -> PermissionQuery:
        return PermissionQuery(
            tool=tool,
            input=dict(input),
            read_only=tool in READ_ONLY if read_only is None else read_only,
            cwd=ws,
            call_id="call-1",
            turn_id="turn-1",
            agent_id="agent-1",
        )

    return make


@pytest.fixture
def log() -> Log:
    return Log()
