"""The `~/.gitconfig` a sandboxed command sees: who commits, and nothing else.

A person's own git config often holds credentials (`url.https://<token>@host/.insteadOf`,
`http.extraHeader = Authorization: …`) and names programs; HOME is hidden, so the command gets
a file made from the few harmless keys `git commit` and `git init` want instead, bound
read-only at `~/.gitconfig`. Made once per process and content, in a private folder.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

KEPT_KEYS = ("user.name", "user.email", "init.defaultbranch")
_TIMEOUT = 10.0
_LOCK = threading.Lock()
_MADE: dict[str, Path] = {}
_READ: dict[str, dict[str, str]] = {}
_FOLDER: list[Path] = []


def identity_config(env: Mapping[str, str]) -> Path | None:
    """A file holding the global `user.name`, `user.email` and `init.defaultBranch` of the
    environment's HOME (none set: None)."""
    text = _render(_cached_read(env))
    if not text:
        return None
    with _LOCK:
        made = _MADE.get(text)
        if made is not None and made.exists():
            return made
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="shard-gitconfig-")))
            atexit.register(shutil.rmtree, _FOLDER[0], True)
        path = _FOLDER[0] / f"gitconfig-{len(_MADE)}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        _MADE[text] = path
        return path


def _cached_read(env: Mapping[str, str]) -> dict[str, str]:
    """`_read`, again only when a global config file changed (one `git` less per command)."""
    home = Path(env.get("HOME") or Path.home())
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    stamps: list[object] = [str(home), str(xdg)]
    for path in (home / ".gitconfig", xdg / "git" / "config"):
        try:
            info = path.stat()
            stamps.append((info.st_mtime_ns, info.st_size, info.st_ino))
        except OSError:
            stamps.append(None)
    key = repr(stamps)
    with _LOCK:
        if key in _READ:
            return _READ[key]
    values = _read(env)
    with _LOCK:
        _READ[key] = values
    return values


def _read(env: Mapping[str, str]) -> dict[str, str]:
    clean = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            ["git", "config", "--global", "--includes", "--get-regexp", _PATTERN],
            env=clean, stdin=subprocess.DEVNULL, capture_output=True, timeout=_TIMEOUT,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found: dict[str, str] = {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key in KEPT_KEYS and "\n" not in value:
            found[key] = value
    return found


_PATTERN = r"^(user\.name|user\.email|init\.defaultbranch)$"


def _render(values: Mapping[str, str]) -> str:
    lines: list[str] = []
    for section in ("user", "init"):
        pairs = [(k.split(".", 1)[1], v) for k, v in values.items() if k.startswith(section)]
        if pairs:
            lines.append(f"[{section}]")
            lines += [f"\t{name} = {_quoted(value)}" for name, value in pairs]
    return "\n".join(lines) + "\n" if lines else ""


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
