"""Repositories inside the workspace: the nested ones a command must not plant into, and what a
command planted in a repository it made itself.

A nested repository (`vendor/lib/.git`, a second project in the same folder) runs its own hooks
when the person commits there, so its git folder is protected like the workspace's own; the
search is bounded (`MAX_DEPTH` folders down, `MAX_FOLDERS` looked at, build and dependency
folders skipped). A repository the command creates (`git init`) is writable while it runs: when
it ends, any hook but git's own `*.sample` is moved away, and a `.git/config` naming a program
git would run (`core.fsmonitor`, `core.hooksPath`, filters, an `!` alias, an include, …) makes
the whole new `.git` move away.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from shard_core.tools.environment import GIT_SAFE_CONFIG, repository_overrides

MAX_DEPTH = 3
MAX_FOLDERS = 5000
SKIPPED = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "build", "dist", ".tox"}
)
_FIXED_KEYS = frozenset(key.lower() for key, _ in GIT_SAFE_CONFIG)
_TIMEOUT = 10.0


def nested_repositories(root: Path) -> list[Path]:
    """Folders below `root` (not `root` itself) that hold a `.git`, breadth first, bounded."""
    found: list[Path] = []
    level, seen = [root], 0
    for _ in range(MAX_DEPTH):
        below: list[Path] = []
        for folder in level:
            for child in _subfolders(folder):
                seen += 1
                if seen > MAX_FOLDERS:
                    return found
                if os.path.lexists(child / ".git"):
                    found.append(child)
                below.append(child)
        level = below
    return found


def _subfolders(folder: Path) -> list[Path]:
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        return [
            Path(e.path)
            for e in entries
            if e.name not in SKIPPED and e.is_dir(follow_symlinks=False)
        ]
    return []


def planted(folder: Path) -> list[Path]:
    """What to move away from the repository a command made in `folder`: its whole `.git` when
    the config runs a program, else every hook that is not a `*.sample`."""
    git = folder / ".git"
    if not git.is_dir():
        return []
    if runs_a_program(_config_entries(git / "config")):
        return [git]
    with contextlib.suppress(OSError):
        return [h for h in sorted((git / "hooks").iterdir()) if not h.name.endswith(".sample")]
    return []


def runs_a_program(entries: Iterable[tuple[str, str]]) -> bool:
    """Whether config entries (`key`, `value`; keys as git prints them) name a program git may
    run on its own, or pull in another file."""
    for key, value in entries:
        lower = key.lower()
        section, _, rest = lower.partition(".")
        if lower in _FIXED_KEYS or repository_overrides([key]):
            return True
        if section in ("include", "includeif"):
            return True
        if section in ("alias", "submodule") and value.lstrip().startswith("!"):
            return True
        if section == "remote" and rest.endswith((".uploadpack", ".receivepack")):
            return True
    return False


def _config_entries(path: Path) -> list[tuple[str, str]]:
    """The config file's entries, read by git itself (no includes followed; an unreadable file
    counts as running a program: it is moved away)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            ["git", "config", "--file", str(path), "--list", "--null"],
            env=clean, stdin=subprocess.DEVNULL, capture_output=True, timeout=_TIMEOUT,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return [("include.path", "unreadable")]
    if done.returncode != 0:
        return [] if not path.exists() else [("include.path", "unreadable")]
    entries: list[tuple[str, str]] = []
    for item in done.stdout.decode("utf-8", "replace").split("\0"):
        if item:
            key, _, value = item.partition("\n")
            entries.append((key, value))
    return entries
