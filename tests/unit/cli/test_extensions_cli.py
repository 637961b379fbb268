"""`shard extensions list`: what each extension registered or failed, attributed; project
extensions only with --trust-project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shard_kernel.cli import main

GOOD = "def extension(api):\n    api.register_mcp_transport('stdio', lambda config: None)\n"
BAD = "def extension(api):\n    raise RuntimeError('setup bug')\n"


@pytest.fixture(autouse=True)
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("shard_kernel.commands.SUBCOMMANDS", ("extensions",))
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "extensions").mkdir(parents=True)
    (tmp_path / "home" / "extensions" / "good.py").write_text(GOOD)
    (tmp_path / "home" / "extensions" / "bad.py").write_text(BAD)
    (tmp_path / "ws" / ".shard" / "extensions").mkdir(parents=True)
    (tmp_path / "ws" / ".shard" / "extensions" / "proj.py").write_text(GOOD)


def test_list_reports_registered_failed_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extensions", "list", "--cwd", str(tmp_path / "ws"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["installed"] == ["extensions/good.py"]
    rows = [(r["extension"], r["level"], r["message"]) for r in out["diagnostics"]]
    assert rows == [
        ("extensions/bad.py", "error", "failed to install: RuntimeError: setup bug"),
        ("extensions/good.py", "info", "registered mcp_transport:stdio"),
        ("extensions/proj.py", "warning", "skipped: project extensions need --trust-project"),
    ]


def test_trusted_project_extensions_are_listed_as_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extensions", "list", "--cwd", str(tmp_path / "ws"), "--trust-project"]) == 0
    out = capsys.readouterr().out
    assert "Installed: extensions/good.py, extensions/proj.py" in out
    assert "| extensions/proj.py | warning | replaced mcp_transport:stdio (was registered by " \
        "extensions/good.py) |" in out  # fmt: skip
