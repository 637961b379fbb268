"""The hook tests' folder: a temp SHARD_HOME and config dir, the recording hook script."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.hooks.recording import HOOK


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    work.mkdir()
    (work / ".hooks").mkdir()  # in the workspace: the sandbox a hook runs in shows it
    (work / ".hooks" / "hook.py").write_text(HOOK)
    return work
