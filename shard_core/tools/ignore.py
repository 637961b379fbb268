"""Ignore rules: which entries .gitignore/.ignore files hide, and walking a tree past them."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

# .ignore comes second so its rules win over .gitignore, as in ripgrep.
IGNORE_FILES = (".gitignore", ".ignore")
ALWAYS_SKIPPED = frozenset({".git"})


@dataclass(frozen=True)
class Entry:
    path: Path
    is_dir: bool
    is_symlink: bool

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore files in force for one directory: its own and every ancestor's up to the root."""

    layers: tuple[tuple[Path, GitIgnoreSpec], ...] = ()

    @classmethod
    def for_directory(cls, directory: Path, root: Path) -> IgnoreRules:
        rules = cls()
        if not directory.is_relative_to(root):
            return rules.entering(directory)
        current = root
        rules = rules.entering(current)
        for part in directory.relative_to(root).parts:
            current = current / part
            rules = rules.entering(current)
        return rules

    def entering(self, directory: Path) -> IgnoreRules:
        lines: list[str] = []
        for name in IGNORE_FILES:
            try:
                lines += (directory / name).read_text(errors="replace").splitlines()
            except OSError:
                continue
        if not lines:
            return self
        return IgnoreRules((*self.layers, (directory, _spec(lines))))

    def ignores(self, path: Path, is_dir: bool) -> bool:
        # The deepest file with a matching rule decides, so a nested `!keep.log` can re-include.
        for base, spec in reversed(self.layers):
            relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                return include
        return False


def _spec(lines: list[str]) -> GitIgnoreSpec:
    """The lines' rules; a line that is no pattern (a lone `!`, a trailing backslash, a bad
    range) is skipped, as git skips it, instead of failing every walk below the file."""
    from pathspec import GitIgnoreSpec  # with the first ignore file, not at import

    try:
        return GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):
        return GitIgnoreSpec.from_lines([line for line in lines if _is_pattern(line)])


def _is_pattern(line: str) -> bool:
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


def scan(directory: Path, rules: IgnoreRules, *, hidden: bool) -> list[Entry]:
    """Visible children of `directory`: directories first, then files, each sorted by name."""
    try:
        with os.scandir(directory) as listing:
            raw = list(listing)
    except OSError:
        return []
    entries: list[Entry] = []
    for item in raw:
        if item.name in ALWAYS_SKIPPED or (not hidden and item.name.startswith(".")):
            continue
        try:
            is_dir = item.is_dir(follow_symlinks=False)
        except OSError:
            continue
        path = Path(item.path)
        if not rules.ignores(path, is_dir):
            entries.append(Entry(path, is_dir, item.is_symlink()))
    entries.sort(key=lambda e: (not e.is_dir, e.name.lower(), e.name))
    return entries


def walk_files(start: Path, root: Path, *, hidden: bool = True) -> Iterator[Entry]:
    """Every visible non-directory below `start`, depth-first in sorted order.

    Symlinked directories are listed as entries but never entered: following them could leave
    the workspace or loop forever.
    """
    stack: list[tuple[Path, IgnoreRules]] = [(start, IgnoreRules.for_directory(start, root))]
    while stack:
        directory, rules = stack.pop()
        entries = scan(directory, rules, hidden=hidden)
        subdirs = [e for e in entries if e.is_dir]
        yield from (e for e in entries if not e.is_dir)
        stack += [(d.path, rules.entering(d.path)) for d in reversed(subdirs)]
