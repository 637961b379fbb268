"""The built-in allowlist of read-only shell commands the default policy lets through unasked.

`ls cat head tail wc pwd echo grep rg`, `find` without `-exec`/`-ok`/`-delete`/`-fprint…`/
`-files0-from`, `rg` without `--pre`/`--hostname-bin`, `wc` without `--files0-from`, and
`git status|log|diff|show` (after harmless global options such as `--no-pager`) without
`--output`/`--ext-diff`.

The list is deliberately small, and it applies only when the whole command was analysed cleanly
and no part of it writes a file (shell_policy.py checks that). Every path the command can touch
must stay inside the workspace after realpath, judged on what bash will pass, not on the words
as written (reach.py): a glob is expanded against the workspace and every match judged; a word
bash expands in a way the gate does not model (`$X`, braces, `~+`, `~user`) asks. An option
carrying a path (`--file=/etc/x`, `-f/etc/x`, every tail of a short-option cluster), a path that
resolves outside the workspace (symlinks followed) or that a Read deny/ask rule names makes the
command ask instead. A command that follows symlinks while walking a tree (`grep -R`,
`rg -L`, `find -L`, `ls -RL`) asks when the workspace holds a symlink that leads out. `git` is
trusted to honour only the repository's own config, which lives under the protected `.git/`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from shard_core.engine.permissions.command_forms import harmless_globals
from shard_core.engine.permissions.paths import PathTarget, resolve_target
from shard_core.engine.permissions.reach import escaping_link, expand_word
from shard_core.engine.permissions.shell_words import Word

__all__ = ["READ_ONLY_COMMANDS", "is_read_only_command"]

READ_ONLY_COMMANDS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "rg", "find", "git"}
)
_GIT_READS = frozenset({"status", "log", "diff", "show"})
_GIT_UNSAFE = ("--output", "--ext-diff")
_FIND_ACTIONS = frozenset(
    {
        *("-exec", "-execdir", "-ok", "-okdir", "-delete"),
        *("-fprint", "-fprint0", "-fprintf", "-fls", "-files0-from"),
    }
)
# Options that make a command run a program or read its file list from a file.
_UNSAFE_OPTIONS = {
    "rg": ("--pre", "--hostname-bin"),
    "wc": ("--files0-from",),
    "git": _GIT_UNSAFE,
}
_NO_PATH_ARGS = frozenset({"echo", "pwd"})


def is_read_only_command(
    argv: tuple[str, ...],
    words: Sequence[Word],
    cwd: Path,
    guarded: Callable[[PathTarget], bool],
) -> bool:
    """Whether `argv` is on the allowlist; `words` are its arguments as shell words (argv[1:]).

    `guarded(target)` says a rule wants a path judged.
    """
    if not argv or argv[0] not in READ_ONLY_COMMANDS:
        return False
    name = argv[0]
    skip = harmless_globals(argv) if name == "git" else 0
    args, words = argv[1 + skip :], words[skip:]
    if not _options_allowed(name, args):
        return False
    if name == "git":
        args, words = args[1:], words[1:]
    if name in _NO_PATH_ARGS:
        return True
    for word in words:
        expanded = expand_word(word, cwd)
        if expanded is None or not all(_stays_inside(w, cwd, guarded) for w in expanded):
            return False
    return not (_follows_links(name, args) and escaping_link(cwd, cwd) is not None)


def _options_allowed(name: str, args: tuple[str, ...]) -> bool:
    if name == "git" and (not args or args[0] not in _GIT_READS):
        return False
    if name == "find" and _FIND_ACTIONS.intersection(args):
        return False
    unsafe = _UNSAFE_OPTIONS.get(name, ())
    return not any(a == u or a.startswith(u + "=") for a in args for u in unsafe) and not (
        name == "git" and any(a.startswith(_GIT_UNSAFE) for a in args)
    )


def _follows_links(name: str, args: tuple[str, ...]) -> bool:
    """Whether the command follows symlinks it meets while walking a directory tree.

    Short-option clusters are read generously (`-nR` and `-eR` both count): a false yes only
    means the tree is checked.
    """
    shorts = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    longs = frozenset(a.split("=", 1)[0] for a in args if a.startswith("--"))
    if name == "grep":
        return "R" in shorts or "--dereference-recursive" in longs
    if name == "rg":
        return "L" in shorts or "--follow" in longs
    if name == "find":
        return "-L" in args or "-follow" in args
    if name == "ls":
        recursive = "R" in shorts or "--recursive" in longs
        return recursive and ("L" in shorts or "--dereference" in longs)
    return False


def _stays_inside(word: str, cwd: Path, guarded: Callable[[PathTarget], bool]) -> bool:
    if "$" in word or "`" in word:
        return False
    if word.startswith("-"):
        if "=" in word:
            value = word.split("=", 1)[1]
            return not value or _path_inside(value, cwd, guarded)
        if word.startswith("--"):
            return "/" not in word and "~" not in word
        # `-fFILE`: any tail of a short-option cluster may be an attached value.
        return all(_path_inside(word[i:], cwd, guarded) for i in range(2, len(word)))
    return _path_inside(word, cwd, guarded)


def _path_inside(value: str, cwd: Path, guarded: Callable[[PathTarget], bool]) -> bool:
    try:
        target = resolve_target(value, cwd)
    except ValueError:
        return False
    return target.inside and not guarded(target)
