"""Where Shard keeps things: SHARD_HOME (state it writes) and the XDG config dir (human-edited).

State files are 0600 and state directories 0700: session logs hold everything the agent saw.
"""

from __future__ import annotations

import os
from pathlib import Path

from shard_core.tools.atomic import write_atomic


def shard_home() -> Path:
    """`$SHARD_HOME`, default `~/.shard`."""
    raw = os.environ.get("SHARD_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".shard"


def config_dir() -> Path:
    """`$XDG_CONFIG_HOME/shard`, default `~/.config/shard`."""
    raw = os.environ.get("XDG_CONFIG_HOME")
    base = Path(raw).expanduser() if raw else Path.home() / ".config"
    return base / "shard"


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) owner-only; tighten it if it already exists."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Atomically replace `path` with `data`, owner-only."""
    private_dir(path.parent)
    write_atomic(path, data)
    path.chmod(0o600)
