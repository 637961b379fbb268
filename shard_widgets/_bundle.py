"""The built front end: the widget bundle and the prebuilt JupyterLab extension, and the sources
they were built from.

Standard library only: `hatch_build.py` loads this file by path at build time, before the
package's dependencies exist. `sources_digest` must hash exactly what
`labextension/scripts/build.mjs` hashes (a test compares the committed build-info.json).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

STATIC_DIR = Path(__file__).resolve().parent / "static"
LAB_DIR = (
    Path(__file__).resolve().parents[1] / "share" / "jupyter" / "labextensions" / "shard-jupyterlab"
)
"""In a source tree; the wheel installs it as `<prefix>/share/jupyter/labextensions/…`."""
BUILD_INFO = STATIC_DIR / "build-info.json"
BUNDLES = ("agent-widget.js", "permission-dialog.js", "agent-dashboard.js", "shard-widgets.css")

SOURCE_FILES = (
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.lab.json",
    "install.json",
)
SOURCE_DIRS = ("src", "scripts")

Freshness = Literal["fresh", "stale", "missing"]


def source_files(labextension: Path) -> list[str]:
    """Every input of the bundle, as sorted POSIX paths relative to `labextension/`."""
    names = [name for name in SOURCE_FILES if (labextension / name).is_file()]
    for folder in SOURCE_DIRS:
        names += [
            path.relative_to(labextension).as_posix()
            for path in (labextension / folder).rglob("*")
            if path.is_file()
        ]
    return sorted(names)


def sources_digest(labextension: Path) -> str:
    digest = hashlib.sha256()
    for name in source_files(labextension):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update((labextension / name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def read_build_info(static_dir: Path = STATIC_DIR) -> dict[str, object]:
    try:
        info = json.loads((static_dir / "build-info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def freshness(labextension: Path, static_dir: Path = STATIC_DIR) -> Freshness:
    """`missing` without every bundle file; `stale` when the sources changed since the build."""
    if not all((static_dir / name).is_file() for name in BUNDLES):
        return "missing"
    if not labextension.is_dir():
        return "fresh"  # an sdist or wheel without sources: the prebuilt bundle is all there is
    recorded = read_build_info(static_dir).get("sources_sha256")
    return "fresh" if recorded == sources_digest(labextension) else "stale"


def lab_freshness(labextension: Path, lab_dir: Path = LAB_DIR) -> Freshness:
    """The same for the JupyterLab extension: its package.json and remoteEntry are the minimum."""
    static = lab_dir / "static"
    if not (lab_dir / "package.json").is_file() or not any(static.glob("remoteEntry.*.js")):
        return "missing"
    if not labextension.is_dir():
        return "fresh"
    recorded = read_build_info(lab_dir).get("sources_sha256")
    return "fresh" if recorded == sources_digest(labextension) else "stale"


def esm(name: str) -> Path | str:
    """The bundle file for anywidget's `_esm`, or a module that says it was never built."""
    path = STATIC_DIR / name
    if path.is_file():
        return path
    message = json.dumps(
        f"Shard widget bundle {name} is missing: run `npm run build` in labextension/."
    )
    return f"export default {{ render({{ el }}) {{ el.textContent = {message}; }} }};\n"


def css() -> Path | str:
    path = STATIC_DIR / "shard-widgets.css"
    return path if path.is_file() else ""
