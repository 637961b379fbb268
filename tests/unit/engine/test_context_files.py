"""Context files: SHARD.md then AGENTS.md, user → git root → cwd; the project layer needs trust."""

from __future__ import annotations

from pathlib import Path

from shard_core.engine.context_files import load_context_files


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    user = tmp_path / "config"
    user.mkdir()
    (user / "SHARD.md").write_text("user rule")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("repo agents")
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "SHARD.md").write_text("package rule")
    (tmp_path / "SHARD.md").write_text("outside the repo: never read")
    return user, sub


def test_layers_in_order_with_trust(tmp_path: Path) -> None:
    user, cwd = _layout(tmp_path)
    found = load_context_files(cwd, user, trusted=True)
    texts = [s.text.split("\n\n", 1)[1] for s in found.sections]
    assert texts == ["user rule", "repo agents", "package rule"]
    assert all(s.stable for s in found.sections)
    assert found.diagnostics == []


def test_project_layer_skipped_without_trust(tmp_path: Path) -> None:
    user, cwd = _layout(tmp_path)
    found = load_context_files(cwd, user, trusted=False)
    assert [s.text.split("\n\n", 1)[1] for s in found.sections] == ["user rule"]
    assert len(found.diagnostics) == 2
    assert all("needs --trust-project" in d for d in found.diagnostics)
