"""The workspace paths a sandboxed command must not change: where code and config live that the
person's own tools run or trust later — git hooks and config (the next `git commit` on the host
runs `.git/hooks/pre-commit`), Shard's project rules, skills and extensions, MCP servers and
context files.

The workspace is bound writable, so each existing protected path is bound read-only again on
top of it, and every folder between the writable root and it is bound onto itself: a mount
point cannot be renamed or removed (EBUSY), so `mv .git x && mkdir .git` cannot swap the
protected folder for a planted one.

A mount needs an inode to sit on, and one made inside the writable root would be made on the
host. So for a missing protected *folder* (`.git/hooks`, `.git/info`, `.shard`, `.agents`) an
empty folder is created on the host — git makes the first two itself, git ignores empty
folders, and an empty one means "nothing here" to every loader — and then protected (in the
root the agent works in; in another root, one a rule let it reach, the folder is watched). A missing
protected *file* (`SHARD.md`, `AGENTS.md`, `.mcp.json`, a `.git` where there is no repository)
is not created: it is watched, and one that appears while the command runs is renamed to
`<name>.quarantined-<time>` when the command ends (`quarantine`). Until then it exists on the
host; the file tools ask before writing any of these paths.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shard_core.tools.repositories import nested_repositories, planted

PROJECT_FOLDERS = (".shard", ".agents")
PROJECT_FILES = (".mcp.json", "SHARD.md", "AGENTS.md")
GIT_FOLDERS = ("hooks", "info")
GIT_FILES = ("config", "config.worktree", "commondir")
MAX_MODULES = 200


@dataclass
class Protection:
    """What to bind for one command, and what to check when it ends."""

    pinned: list[Path] = field(default_factory=list[Path])
    protected: list[Path] = field(default_factory=list[Path])
    created: list[Path] = field(default_factory=list[Path])
    watched: list[Path] = field(default_factory=list[Path])
    new_repos: list[Path] = field(default_factory=list[Path])
    """folders without a `.git` at launch: a repository made there is checked when it ends"""
    scanned: list[Path] = field(default_factory=list[Path])
    """roots searched for nested repositories (`repositories.py`), again when it ends"""
    known: set[Path] = field(default_factory=set[Path])
    """the nested repositories found at launch"""
    links: dict[Path, str] = field(default_factory=dict[Path, str])
    """protected paths that are symlinks, and where they point"""


def protection(roots: Sequence[Path], cwd: Path) -> Protection:
    """The protected paths of every workspace root and of each folder from `cwd` up to the top of
    its repository (project rules are read from each), inside the writable `roots`."""
    real_roots = [_real(r) for r in roots]
    found = Protection()
    own = _root_of(_real(cwd), real_roots)
    folders = project_folders(real_roots, _real(cwd))
    for folder in folders:
        # Folders are made only where the agent works: another root (a path a rule let it
        # reach) gets its missing ones watched instead, not a stray `.shard` on the host.
        mine = folder == own or folder not in real_roots
        _project(folder, real_roots, found, create=mine)
    if own is not None:
        found.scanned.append(own)
        found.known = set(nested_repositories(own))
        for repo in sorted(found.known - set(folders)):
            _git(repo, real_roots, found)
    found.pinned = sorted(_dedupe(found.pinned), key=lambda p: len(p.parts))
    found.protected = _dedupe(found.protected)
    return found


def project_folders(roots: Sequence[Path], cwd: Path) -> list[Path]:
    """Each root, and each folder from `cwd` up to the first holding `.git` (or a root)."""
    folders = list(roots)
    folder = cwd
    while _root_of(folder, roots) is not None:
        if folder not in folders:
            folders.append(folder)
        if os.path.lexists(folder / ".git") or folder in roots:
            break
        folder = folder.parent
    return folders


def _project(folder: Path, roots: Sequence[Path], found: Protection, *, create: bool) -> None:
    for name in PROJECT_FOLDERS:
        _protect(folder / name, roots, found, create=create)
    for name in PROJECT_FILES:
        _protect(folder / name, roots, found, create=False)
    git = folder / ".git"
    if not os.path.lexists(git):
        found.new_repos.append(folder)  # a repository the command makes: checked at the end
        if any(os.path.lexists(f / ".git") for f in folder.parents):
            found.watched.append(git)  # a planted one would take over the outer repository
        return
    _git(folder, roots, found)


def _git(folder: Path, roots: Sequence[Path], found: Protection) -> None:
    """The existing `.git` in `folder`: pinned (a folder) or protected (a gitfile), and the
    hooks, info and config of every git folder it stands for."""
    git = folder / ".git"
    root = _root_of(folder, roots)
    if git.is_dir() and root is not None:
        found.pinned += [*_chain(root, folder / ".git"), folder / ".git"]
    else:
        _protect(git, roots, found, create=False)  # the gitfile naming the real folder
    for gitdir in _with_modules(git_dirs(git)):
        if gitdir != folder / ".git" and (root := _root_of(gitdir, roots)) is not None:
            found.pinned += [*_chain(root, gitdir), gitdir]
        for name in GIT_FOLDERS:
            _protect(gitdir / name, roots, found, create=os.path.isfile(gitdir / "HEAD"))
        for name in GIT_FILES:
            if os.path.lexists(gitdir / name):
                _protect(gitdir / name, roots, found, create=False)


def git_dirs(git: Path) -> list[Path]:
    """The git folders a `.git` stands for: itself, or the one a gitfile names (a worktree, a
    submodule) and that folder's common dir (where a worktree's hooks and config live)."""
    if git.is_dir():
        return [_real(git)]
    try:
        line = git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return []
    if not line.startswith("gitdir:"):
        return []
    gitdir = _real(git.parent / line.removeprefix("gitdir:").strip())
    found = [gitdir]
    with contextlib.suppress(OSError):
        common = (gitdir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
        found.append(_real(gitdir / common))
    return _dedupe(found)


def _with_modules(gitdirs: list[Path]) -> list[Path]:
    """Each git folder and its submodules' (`modules/<name>`, nested), up to `MAX_MODULES`: a
    person's `git commit` inside a submodule runs the hooks kept there."""
    found = list(gitdirs)
    for gitdir in gitdirs:
        for top, dirs, files in os.walk(gitdir / "modules"):
            if "HEAD" in files:  # a git folder: only its own `modules` may hold more
                found.append(Path(top))
                dirs[:] = ["modules"] if "modules" in dirs else []
            if len(found) > MAX_MODULES:
                return _dedupe(found)
    return _dedupe(found)


def _protect(path: Path, roots: Sequence[Path], found: Protection, *, create: bool) -> None:
    if path.is_symlink() and _root_of(_real(path.parent), roots) is not None:
        # A mount follows the link and protects its target; the link itself could still be
        # replaced, so it is checked (and put back) when the command ends.
        found.links[path] = os.readlink(path)
    real = _real(path)
    root = _root_of(real, roots)
    if root is None:
        return  # outside every writable root: read-only already
    if not os.path.lexists(real):
        if not create:
            found.watched.append(path)
            return
        try:
            real.mkdir()
        except OSError:
            return  # the parent is missing or not ours to write: nothing to protect there
        found.created.append(real)
    found.pinned += _chain(root, real)
    found.protected.append(real)


def _chain(root: Path, path: Path) -> list[Path]:
    """The folders strictly between `root` and `path`, outermost first."""
    out: list[Path] = []
    folder = path.parent
    while folder != root and folder.is_relative_to(root):
        out.append(folder)
        folder = folder.parent
    return out[::-1]


def quarantine(found: Protection) -> list[str]:
    """After the command: rename every watched path that now exists, and what the command
    planted in a repository it created (`repositories.planted`); a note for each."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    moved = [p for p in found.watched if os.path.lexists(p)]
    made = list(found.new_repos)
    for root in found.scanned:
        made += [r for r in nested_repositories(root) if r not in found.known]
    for folder in _dedupe(made):
        moved += [p for p in planted(folder) if p not in moved]
    changed = {p: t for p, t in found.links.items() if not _points_to(p, t)}
    moved += [p for p in changed if os.path.lexists(p) and p not in moved]
    notes: list[str] = []
    for path in moved:
        target = path.with_name(f"{path.name}.quarantined-{stamp}")
        try:
            path.rename(target)
        except OSError as exc:
            notes.append(f"the command created {path}, which could not be moved away: {exc}")
            continue
        notes.append(
            f"the command created {path}, which Shard or git would trust later; it was renamed "
            f"to {target.name} (make it with the write tool, which asks)"
        )
    for path, target in changed.items():
        with contextlib.suppress(OSError):
            os.symlink(target, path)
            notes.append(f"the command replaced the link {path}; it points to {target} again")
    return notes


def _points_to(path: Path, target: str) -> bool:
    try:
        return os.readlink(path) == target
    except OSError:
        return False


def _root_of(path: Path, roots: Sequence[Path]) -> Path | None:
    inside = [r for r in roots if path.is_relative_to(r)]
    return max(inside, key=lambda r: len(r.parts)) if inside else None


def _dedupe(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))
