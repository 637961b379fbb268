"""OwnNotebook: which notebook a `shard` kernel runs, from what its runner tells it, so that the
notebook's `metadata.shard` (model, rules, mode, policy: notebook_settings.py) applies whichever
runner executes it.

What each runner gives a kernel (jupyter_server 2.21, nbclient 0.11, papermill 2.7, nbconvert
7.17):

- anyone, e.g. a script or CI: `KERNEL_SHARD_NOTEBOOK`, the notebook's path (absolute, or
  relative to the kernel's folder; a `KERNEL_*` variable, so kernel gateways forward it);
- jupyter_server (JupyterLab, Notebook 7) without Shard's extension: `JPY_SESSION_NAME`, the
  notebook's path, in a kernel started in the notebook's folder. With the extension the gateway
  has already applied the metadata when it adopted the kernel, and named its agent
  (`KERNEL_SHARD_AGENT_ID`): a kernel whose agent was named was configured by whoever named it
  (the gateway from its manifest, `shard batch` and `shard demo` from their options), and reads
  nothing more;
- nbclient and what runs on it (`jupyter execute`, `jupyter nbconvert --execute`, papermill):
  only the working folder, which is the notebook's (nbclient's `resources['metadata']['path']`,
  papermill's `cwd`). Their execute_requests carry no cell id and no metadata, and their
  environment is the caller's. So the kernel waits for its first cell and takes the Shard
  notebook of its folder whose first code cell that is. When several notebooks there start
  with that cell and their settings differ, none applies and the first cell says so; a
  notebook run with another working folder is not found (`KERNEL_SHARD_NOTEBOOK` settles both).

The notebook is more specific than the `KERNEL_SHARD_*` variables the kernel inherits, as for an
adopted kernel (adoption.py): they are the defaults for what it leaves unsaid.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from shard_kernel.agent_env import PREFIX, AgentEnv
from shard_kernel.kernelspec import KERNEL_NAME
from shard_kernel.notebook_settings import notebook_settings, read_notebook, shard_metadata

NOTEBOOK_VARIABLE = PREFIX + "NOTEBOOK"
SESSION_VARIABLE = "JPY_SESSION_NAME"
MAX_CANDIDATES = 200
"""Notebooks of the working folder read at most (a folder of thousands is not a notebook's)."""


@dataclass
class OwnNotebook:
    path: Path | None = None
    candidates: tuple[tuple[Path, dict[str, Any]], ...] = ()
    """When no notebook was named: the Shard notebooks of the folder, read, for the first cell"""
    note: str | None = None
    """what the first cell should say about it (settings that could not be told apart)"""

    @property
    def waits_for_first_cell(self) -> bool:
        """Some notebook of the folder has settings, and only the first cell tells which runs."""
        return self.path is None and any(shard_metadata(doc) for _, doc in self.candidates)

    def pick_by_first_cell(self, code: str | None) -> None:
        text = (code or "").strip()
        found = [(p, doc) for p, doc in self.candidates if text and first_code(doc) == text]
        self.candidates = ()
        settings = {json.dumps(shard_metadata(doc), sort_keys=True) for _, doc in found}
        if len(settings) == 1:
            self.path = found[0][0]
        elif len(settings) > 1:
            names = ", ".join(p.name for p, _ in found)
            self.note = (
                f"the notebooks {names} all start with this cell and their metadata.shard "
                f"differ, so none was applied; set {NOTEBOOK_VARIABLE} to the one this is"
            )

    def agent_env(self, env: AgentEnv, environ: Mapping[str, str], log: Any) -> AgentEnv:
        """`env` with the notebook's settings (the same env when there is none)."""
        if self.path is None:
            return env
        found = notebook_settings(self.path, environ, log)
        changes: dict[str, Any] = {}
        if "cwd" in found:
            changes["cwd"] = Path(found["cwd"])
        for name in ("model", "mode", "headless_policy"):
            if name in found:
                changes[name] = found[name]
        if "permissions" in found:
            changes["allow"] = tuple(found["permissions"].allow)
            changes["deny"] = tuple(found["permissions"].deny)
            changes["rules_from"] = f"notebook metadata of {self.path.name}"
        return replace(env, **changes)


def find_own_notebook(environ: Mapping[str, str], folder: Path) -> OwnNotebook:
    """What the runner said (see the module docstring); `folder` is the kernel's working one."""
    named = environ.get(NOTEBOOK_VARIABLE, "").strip()
    if named:
        return OwnNotebook(path=folder / Path(named).expanduser())
    if environ.get(PREFIX + "AGENT_ID", "").strip():
        return OwnNotebook()
    session = session_notebook(environ.get(SESSION_VARIABLE, ""), folder)
    if session is not None:
        return OwnNotebook(path=session)
    return OwnNotebook(candidates=tuple(shard_notebooks(folder)))


def session_notebook(raw: str, folder: Path) -> Path | None:
    """The Shard notebook JPY_SESSION_NAME names, if it is one in this kernel's folder.

    jupyter_server sets it to the notebook's path on disk (or its API path, relative to the
    server's root, whose last part is then in this folder). A kernel started by a Python
    notebook's code (papermill in a cell) inherits that notebook's name: not a Shard notebook,
    or not in this folder, it names some other kernel's notebook."""
    raw = raw.strip()
    if not raw.endswith(".ipynb"):
        return None
    path = Path(raw) if Path(raw).is_absolute() else folder / Path(raw).name
    try:
        if path.resolve().parent != folder.resolve():
            return None
    except OSError:
        return None
    return path if kernel_name(read_notebook(path)) == KERNEL_NAME else None


def shard_notebooks(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    try:
        paths = sorted(folder.glob("*.ipynb"))[:MAX_CANDIDATES]
    except OSError:
        return []
    read = [(path, read_notebook(path)) for path in paths]
    return [(path, doc) for path, doc in read if kernel_name(doc) == KERNEL_NAME]


def kernel_name(document: Mapping[str, Any]) -> str | None:
    metadata = document.get("metadata")
    spec = metadata.get("kernelspec") if isinstance(metadata, dict) else None
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) else None


def first_code(document: Mapping[str, Any]) -> str | None:
    """The first code cell's text that a runner sends (nbclient skips blank ones)."""
    cells = document.get("cells")
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        if text.strip():
            return text.strip()
    return None
