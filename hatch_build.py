"""Hatch build hook: keep the prebuilt front end in step — the widget bundle (shard_widgets/static/)
and the JupyterLab extension (share/jupyter/labextensions/shard-jupyterlab/, shipped as shared
data so `pip install` alone makes Lab load it).

The bundle is committed, so building on a machine without node just ships it. With node and
npm present and the bundle missing or built from other sources (a digest recorded in
static/build-info.json, not file times, which a git checkout scrambles), it runs
`npm ci` (only when node_modules is missing or older than the lock file) and `npm run build`.

Environment: SHARD_SKIP_JS_BUILD=1 never runs npm; SHARD_FORCE_JS_BUILD=1 always rebuilds.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _load_bundle_module(root: Path) -> ModuleType:
    # By path: the build environment has none of shard_widgets' dependencies.
    spec = importlib.util.spec_from_file_location(
        "_shard_bundle", root / "shard_widgets" / "_bundle.py"
    )
    if spec is None or spec.loader is None:
        raise RuntimeError("cannot load shard_widgets/_bundle.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WidgetBundleHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return  # an sdist carries the sources and the prebuilt bundle as they are
        root = Path(self.root)
        labextension = root / "labextension"
        bundle = _load_bundle_module(root)
        states = {bundle.freshness(labextension), bundle.lab_freshness(labextension)}
        state = next((s for s in ("missing", "stale") if s in states), "fresh")
        if _flag("SHARD_FORCE_JS_BUILD"):
            state = "stale"
        if state == "fresh":
            return
        npm = shutil.which("npm")
        if _flag("SHARD_SKIP_JS_BUILD") or npm is None or shutil.which("node") is None:
            if state == "missing":
                raise RuntimeError(
                    "the prebuilt front end (shard_widgets/static/ or share/jupyter/"
                    "labextensions/shard-jupyterlab/) is missing and node/npm are not available: "
                    "install node >= 20 and npm, or build from a release that ships the bundle"
                )
            self.app.display_warning(
                "shard: labextension/ changed since the widget bundle was built; "
                "node/npm not used, shipping the committed bundle"
            )
            return
        self._build(npm, labextension)

    def _build(self, npm: str, labextension: Path) -> None:
        lock = labextension / "package-lock.json"
        installed = labextension / "node_modules" / ".package-lock.json"
        if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
            self.app.display_info("shard: npm ci (labextension/)")
            _run([npm, "ci", "--no-audit", "--no-fund"], labextension)
        self.app.display_info("shard: npm run build (labextension/)")
        _run([npm, "run", "build"], labextension)


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


def _run(command: list[str], cwd: Path) -> None:
    completed = subprocess.run(command, cwd=cwd, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command[1:])} failed in {cwd} (exit {completed.returncode})")
