"""The built-in allowlist of read-only shell commands the default policy lets through unasked.

`ls cat head tail wc pwd echo grep rg`, `find` without `-exec`/`-ok`/`-delete`/`-fprint…`,
`rg` without `--pre`, and `git status|log|diff|show` without `--output`/`--ext-diff`.

The list is deliberately small, and it applies only when the whole command was analysed cleanly
and no part of it writes a file (shell_policy.py checks that). Each argument must also stay
inside the workspace: any word with `$` or a backtick, an option carrying a path
(`--file=/etc/x`, `-f/etc/x`), or a path that resolves outside the workspace (symlinks
followed) or that a Read deny/ask rule names makes the command ask instead. `git` is trusted to
honour only the repository's own config, which lives under the protected `.git/`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from shard_core.engine.permissions.paths import PathTarget, resolve_target

__all__ = ["READ_ONLY_COMMANDS", "is_read_only_command"]

READ_ONLY_COMMANDS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "rg", "find", "git"}
)
_GIT_READS = frozenset({"status", "log", "diff", "show"})
_GIT_UNSAFE = ("--output", "--ext-diff")
_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_NO_PATH_ARGS = frozenset({"echo", "pwd"})


def is_read_only_command(
    argv: tuple[str, ...], cwd: Path, guarded: Callable[[PathTarget], bool]
) -> bool:
    """Whether `argv` is on the allowlist; `guarded(target)` says a rule wants a path judged."""
    if not argv or argv[0] not in READ_ONLY_COMMANDS:
        return False
    name, args = argv[0], argv[1:]
    if name == "git":
        if not args or args[0] not in _GIT_READS:
            return False
        if any(a.startswith(_GIT_UNSAFE) for a in args):
            return False
        args = args[1:]
    if name == "find" and _FIND_ACTIONS.intersection(args):
        return False
    if name == "rg" and any(a == "--pre" or a.startswith("--pre=") for a in args):
        return False
    if name in _NO_PATH_ARGS:
        return True
    return all(_stays_inside(word, cwd, guarded) for word in args)


def _stays_inside(word: str, cwd: Path, guarded: Callable[[PathTarget], bool]) -> bool:
    if "$" in word or "`" in word:
        return False
    value = word
    if word.startswith("-"):
        if "=" not in word:
            return "/" not in word and "~" not in word
        value = word.split("=", 1)[1]
        if not value:
            return True
    try:
        target = resolve_target(value, cwd)
    except ValueError:
        return False
    return target.inside and not guarded(target)
