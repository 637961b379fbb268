"""`%shard new --notebook this`: hand the agent the notebook the magic runs in, and its kernel.

The notebook's path comes from what Jupyter tells its kernel (`__session__`, `JPY_SESSION_NAME`);
the kernel is this very process, reached through its own connection file, so the agent's
python_exec and notebook_run execute in the user's kernel: the user sees the agent's variables
and the agent sees the user's. `--notebook PATH` hands over another notebook and keeps a
separate workspace kernel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shard_core.types.errors import ConfigError
from shard_kernel.notebook_tools.context import NotebookSetup


def handed_setup(spec: str, user_ns: Mapping[str, Any], cwd: Path) -> NotebookSetup:
    """The notebook tools' setup for `--notebook this|PATH`; a ConfigError says what is wrong."""
    setup = NotebookSetup.from_env(os.environ)
    if spec != "this":
        path = (cwd / spec).expanduser().resolve()
        if path.suffix.lower() != ".ipynb":
            raise ConfigError(f"--notebook {spec}: not a notebook (.ipynb)")
        setup.default_notebook = path
        return setup
    setup.default_notebook = _this_notebook(user_ns)
    setup.connection_file = _own_connection_file()
    return setup


def notice(name: str, setup: NotebookSetup) -> str:
    if setup.connection_file is None:
        return f"agent {name} works on {setup.default_notebook} (its own workspace kernel)"
    return (
        f"agent {name} works on {setup.default_notebook}; NOTE: it executes code in THIS "
        "notebook's kernel — python_exec and notebook_run run next to your variables (you see "
        "its variables, it sees yours). Let a turn finish before running cells yourself."
    )


def _this_notebook(user_ns: Mapping[str, Any]) -> Path:
    found = user_ns.get("__session__") or os.environ.get("JPY_SESSION_NAME")
    if not isinstance(found, str) or not found.strip():
        raise ConfigError(
            "--notebook this: this kernel does not know its notebook (Jupyter tells a kernel "
            "its notebook when a notebook starts it); use --notebook PATH"
        )
    path = Path(found).expanduser()
    path = path if path.is_absolute() else Path.cwd() / path.name
    if path.suffix.lower() != ".ipynb" or not path.is_file():
        raise ConfigError(
            f"--notebook this: {path} is not a notebook file here; use --notebook PATH"
        )
    return path.resolve()


def _own_connection_file() -> Path:
    try:
        from ipykernel.connect import get_connection_file

        return Path(get_connection_file())
    except Exception as exc:  # not inside a running ipykernel
        raise ConfigError(f"--notebook this: no kernel connection file ({exc})") from None
