"""hatch_build.py: rebuild the bundle with npm only when it is missing or stale, else ship it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

interface = pytest.importorskip("hatchling.builders.hooks.plugin.interface")

import hatch_build  # noqa: E402

BUNDLE_MODULE = Path(__file__).resolve().parents[3] / "shard_widgets" / "_bundle.py"


class FakeApp:
    def __init__(self) -> None:
        self.said: list[str] = []

    def display_info(self, message: str) -> None:
        self.said.append(message)

    def display_warning(self, message: str) -> None:
        self.said.append(f"warning: {message}")


def project(tmp_path: Path, state: str) -> Path:
    """A project root with labextension/ sources and a bundle that is fresh, stale or missing."""
    (tmp_path / "shard_widgets" / "static").mkdir(parents=True)
    (tmp_path / "shard_widgets" / "_bundle.py").write_text(BUNDLE_MODULE.read_text())
    lab = tmp_path / "labextension"
    (lab / "src").mkdir(parents=True)
    (lab / "src" / "a.ts").write_text("export {};\n")
    (lab / "package-lock.json").write_text("{}")
    static = tmp_path / "shard_widgets" / "static"
    if state != "missing":
        for name in (
            "agent-widget.js",
            "permission-dialog.js",
            "agent-dashboard.js",
            "shard-widgets.css",
        ):
            (static / name).write_text("x")
        digest = "stale" if state == "stale" else _digest(tmp_path)
        (static / "build-info.json").write_text(json.dumps({"sources_sha256": digest}))
        lab_out = tmp_path / "share" / "jupyter" / "labextensions" / "shard-jupyterlab"
        (lab_out / "static").mkdir(parents=True)
        (lab_out / "package.json").write_text("{}")
        (lab_out / "static" / "remoteEntry.0123.js").write_text("x")
        (lab_out / "build-info.json").write_text(json.dumps({"sources_sha256": digest}))
    return tmp_path


def _digest(root: Path) -> str:
    module = hatch_build._load_bundle_module(root)
    return module.sources_digest(root / "labextension")


def make_hook(*args: Any) -> Any:
    return cast(Any, hatch_build.WidgetBundleHook)(*args)


def run_hook(
    root: Path, monkeypatch: pytest.MonkeyPatch, *, npm: bool, target: str = "wheel"
) -> tuple[FakeApp, list[list[str]]]:
    commands: list[list[str]] = []

    def fake_run(command: list[str], cwd: Path, check: bool) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(
        hatch_build.shutil, "which", lambda name: f"/usr/bin/{name}" if npm else None
    )
    monkeypatch.setattr(hatch_build.subprocess, "run", fake_run)
    app = FakeApp()
    hook = make_hook(str(root), {}, None, None, str(root / "dist"), target, app)
    hook.initialize("standard", {})
    return app, commands


def test_a_fresh_bundle_needs_no_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, commands = run_hook(project(tmp_path, "fresh"), monkeypatch, npm=True)
    assert (app.said, commands) == ([], [])


def test_a_stale_bundle_is_rebuilt_when_npm_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, commands = run_hook(project(tmp_path, "stale"), monkeypatch, npm=True)
    assert commands == [
        ["/usr/bin/npm", "ci", "--no-audit", "--no-fund"],
        ["/usr/bin/npm", "run", "build"],
    ]
    assert app.said == ["shard: npm ci (labextension/)", "shard: npm run build (labextension/)"]


def test_installed_node_modules_skip_npm_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, "stale")
    (root / "labextension" / "node_modules").mkdir()
    (root / "labextension" / "node_modules" / ".package-lock.json").write_text("{}")
    _, commands = run_hook(root, monkeypatch, npm=True)
    assert commands == [["/usr/bin/npm", "run", "build"]]


def test_a_stale_bundle_ships_as_is_without_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, commands = run_hook(project(tmp_path, "stale"), monkeypatch, npm=False)
    assert commands == []
    assert len(app.said) == 1
    assert app.said[0].startswith("warning: shard: labextension/ changed")


def test_a_missing_bundle_without_node_fails_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(RuntimeError, match="is missing and node/npm are not available"):
        run_hook(project(tmp_path, "missing"), monkeypatch, npm=False)


def test_a_missing_lab_extension_alone_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, "fresh")
    lab_out = root / "share" / "jupyter" / "labextensions" / "shard-jupyterlab"
    (lab_out / "static" / "remoteEntry.0123.js").unlink()
    _, commands = run_hook(root, monkeypatch, npm=True)
    assert commands[-1] == ["/usr/bin/npm", "run", "build"]
    with pytest.raises(RuntimeError, match="is missing and node/npm are not available"):
        run_hook(root, monkeypatch, npm=False)


def test_the_sdist_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, commands = run_hook(project(tmp_path, "missing"), monkeypatch, npm=True, target="sdist")
    assert (app.said, commands) == ([], [])


def test_a_failing_npm_stops_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, "stale")
    monkeypatch.setattr(hatch_build.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(
        hatch_build.subprocess,
        "run",
        lambda command, cwd, check: subprocess.CompletedProcess(command, 1),
    )
    hook = make_hook(str(root), {}, None, None, str(root / "dist"), "wheel", FakeApp())
    with pytest.raises(RuntimeError, match="ci --no-audit --no-fund failed"):
        hook.initialize("standard", {})
