"""What a read-only shell command can reach: its words as bash expands them, and followed trees.

The allowlist (readonly.py) judges paths, but bash hands a command the *expansion* of its words.
`expand_word` gives every word bash may pass for one word, or None when the gate does not model
the expansion (`$X`, braces, `~+`/`~-`/`~user`, `**`, too many matches). Globs are expanded here
against the real directories, with bash's rules stretched to a superset so that whatever bash
matches is among the results: matching is case-insensitive and sees dotfiles (an inherited
`BASHOPTS`/`GLOBIGNORE` can turn on `nocaseglob`/`dotglob`), `?` matches one to four bytes (one
character in any locale), a component with `[` or `(` matches every name, and `.`/`..` are
candidates unless the component starts with `*` or `?`. A directory outside the workspace is
never listed: the expansion is unknown instead. The literal word stays among the results (bash
passes it when nothing matches).

`escaping_link` walks a tree without following links and reports the first symlink whose real
path leaves the workspace — what `grep -R`, `rg -L`, `find -L` and `ls -RL` would follow.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from shard_core.engine.permissions.shell_words import Word, unmodelled

__all__ = ["MAX_MATCHES", "MAX_WALK", "escaping_link", "expand_word"]

MAX_MATCHES = 1000  # words one glob may become before the gate stops trying
MAX_WALK = 20_000  # entries a followed tree may hold before the gate stops looking
_MAGIC = re.compile(r"[*?\[(]")
_ANY_NAME = re.compile(rb".*", re.DOTALL)


def expand_word(word: Word, cwd: Path) -> list[str] | None:
    """The words bash may pass for ``word`` (the literal first), or None when unknown."""
    if not word.pattern:
        return None if unmodelled(word) else [word.value]
    if not word.literal or word.brace or word.tilde:
        return None
    matches = _glob(word.value, Path(os.path.realpath(cwd)))
    return None if matches is None else [word.value, *matches]


def _glob(pattern: str, cwd: Path) -> list[str] | None:
    absolute = pattern.startswith("/")
    bases = [Path("/") if absolute else cwd]
    for part in pattern.split("/"):
        if not part or not _MAGIC.search(part):
            bases = [base / part for base in bases] if part else bases
            continue
        if part == "**":
            return None  # globstar, if an inherited BASHOPTS turned it on, walks whole trees
        found = _matches_in(bases, part, cwd)
        if found is None:
            return None
        bases = found
    return [str(base) for base in bases]


def _matches_in(bases: list[Path], part: str, cwd: Path) -> list[Path] | None:
    regex = _component_regex(part)
    dots = part[0] not in "*?"
    found: list[Path] = []
    for base in bases:
        if not Path(os.path.realpath(base)).is_relative_to(cwd):
            return None  # never list a directory outside the workspace
        try:
            with os.scandir(base) as entries:
                names = [os.fsencode(entry.name) for entry in entries]
        except OSError:
            continue  # not a directory (or unreadable): bash matches nothing there either
        names += [b".", b".."] if dots else []
        found += [base / os.fsdecode(name) for name in names if regex.fullmatch(name)]
        if len(found) > MAX_MATCHES:
            return None
    return found


def _component_regex(part: str) -> re.Pattern[bytes]:
    if "[" in part or "(" in part:
        return _ANY_NAME  # bracket and extglob syntax: any name is a possible match
    pieces: list[bytes] = []
    for char in part:
        if char == "*":
            pieces.append(rb".*")
        elif char == "?" or not char.isascii():
            pieces.append(rb".{1,4}")  # one character, however many bytes; any case
        else:
            pieces.append(re.escape(char.encode()))
    return re.compile(b"".join(pieces), re.DOTALL | re.IGNORECASE)


def escaping_link(root: Path, cwd: Path) -> str | None:
    """The first symlink under ``root`` that leads outside ``cwd``; a reason when unsure."""
    real_cwd = Path(os.path.realpath(cwd))
    seen = 0
    stack = [Path(os.path.realpath(root))]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        seen += len(listed)
        if seen > MAX_WALK:
            return f"more than {MAX_WALK} entries under {root} to check for symlinks"
        for entry in listed:
            if entry.is_symlink():
                target = Path(os.path.realpath(entry.path))
                if not target.is_relative_to(real_cwd):
                    return f"{entry.path} links outside the workspace ({target})"
            elif entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
    return None
