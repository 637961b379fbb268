"""The folders a command's programs come from, shown read-only where the sandbox hides their
surroundings: a hidden HOME (`~/.local`, `~/.cargo`, `~/.rustup`, pyenv, nvm, a venv), the
private /tmp (a CI checkout, a test's venv).

HOME is hidden whole and these are bound back, rather than hiding a list of known credential
stores that will always miss one: what is not a toolchain is not there. Inside what is bound
back, the credential files of `hidden.HOME_SECRETS` are hidden again (`~/.cargo/credentials.toml`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

TOOLCHAIN_VARIABLES = (
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_EXE",
    "PYENV_ROOT",
    "NVM_DIR",
    "NVM_BIN",
    "VOLTA_HOME",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_INSTALL",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOROOT",
    "GOPATH",
    "JAVA_HOME",
    "SDKMAN_DIR",
    "GEM_HOME",
    "DOTNET_ROOT",
)
"""Variables naming a toolchain's folder (or, for `*_EXE`/`NVM_BIN`, a file or folder in it)."""
HOME_TOOLCHAINS = (
    ".local/bin",
    ".local/lib",
    ".cargo",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
)
"""The usual places under HOME (git's identity comes separately: `git_identity.py`)."""
BIN_NAMES = ("bin", "sbin", "shims")
MAX_LINKS = 2000
"""Symlinks looked at per PATH folder (pipx, `~/.local/bin` into a venv elsewhere)."""


def toolchain_dirs(
    environs: Sequence[Mapping[str, str]], hidden: Sequence[Path], extra: Iterable[Path] = ()
) -> list[Path]:
    """The real, existing toolchain folders that lie inside a `hidden` folder, outermost first,
    none inside another."""
    candidates: list[Path] = [Path(sys.prefix), Path(sys.base_prefix), *extra]
    scanned: set[tuple[str, Path]] = set()
    for env in environs:
        home = Path(env.get("HOME") or Path.home())
        candidates += [home / name for name in HOME_TOOLCHAINS]
        candidates += [_prefix(Path(env[n]), home) for n in TOOLCHAIN_VARIABLES if env.get(n)]
        for entry in env.get("PATH", "").split(os.pathsep):
            if (entry, home) in scanned:  # the same folder in both environments, or twice
                continue
            scanned.add((entry, home))
            if entry.startswith("/") and _inside(Path(os.path.realpath(entry)), hidden):
                candidates += [_prefix(Path(entry), home), *_link_targets(Path(entry), home)]
    candidates = list(dict.fromkeys(candidates))
    candidates += [h for c in candidates if (h := _venv_home(c)) is not None]
    found: list[Path] = []
    for raw in dict.fromkeys(candidates):
        if not os.path.exists(raw):  # one call; a missing path's real path is missing too
            continue
        path = Path(os.path.realpath(raw))
        if _inside(path, hidden) and path.exists():
            found.append(path)
    found = sorted(dict.fromkeys(found), key=lambda p: len(p.parts))
    return [p for i, p in enumerate(found) if not any(p.is_relative_to(q) for q in found[:i])]


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    """Strictly inside one of `folders` (none of them `/`)."""
    text = str(path)
    return any(text.startswith(f"{f}/") for f in folders)


def _prefix(path: Path, home: Path) -> Path:
    """The install prefix a `bin` folder belongs to (its `lib` holds what the programs load),
    unless that is HOME or `~/.local` themselves."""
    real = Path(os.path.realpath(path))
    if real.is_file():
        real = real.parent
    parent = real.parent
    if real.name in BIN_NAMES and parent not in (home, home / ".local", Path("/")):
        return parent
    return real


def _link_targets(folder: Path, home: Path) -> list[Path]:
    found: list[Path] = []
    targets: set[str] = set()  # most links of a folder point into one or two others
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= MAX_LINKS:
                break
            if entry.is_symlink():
                target = os.path.dirname(os.path.realpath(entry.path))
                if target not in targets:
                    targets.add(target)
                    found.append(_prefix(Path(target), home))
    return found


def _venv_home(path: Path) -> Path | None:
    """A venv's base interpreter's prefix (`home` in its pyvenv.cfg names the base's bin)."""
    with contextlib.suppress(OSError):
        for line in (path / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return Path(value.strip()).parent
    return None
