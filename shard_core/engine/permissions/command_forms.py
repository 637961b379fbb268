"""The forms of one command's argv that Bash rules are matched against.

Multi-command tools take global options before their subcommand (`git -C . push`,
`npm --prefix . publish`, `docker -H h rm`, `kubectl -n ns delete`, `cargo +nightly publish`), so
the argv as written would walk around `Bash(git push:*)`. Deny and ask rules (``broad``) are
matched against every form a command could mean — a superset, so a deny may catch an option
value that merely looks like a subcommand, never the reverse:

- the argv as written;
- the command name followed by each word that can start the subcommand: every leading word
  that starts with `-` or `+` is taken for an option, and every other leading word for the value
  of the option before it (`-C dir`), for any command;
- for git, what a `-c alias.NAME=VALUE` alias given on the command line runs;
- for `find … -delete`, `rm` (and `rm -r`, `rm -rf` …) on find's starting points.

Allow rules (``broad`` False) see the argv as written, and for git also the argv without the
harmless global options that cannot change what runs (`--no-pager`, `--no-optional-locks` …): an
allow rule must never be stretched over `-c core.sshCommand=…`.
"""

from __future__ import annotations

import shlex

__all__ = ["git_shell_alias", "harmless_globals", "rule_forms"]

Argv = tuple[str, ...]

_GIT_HARMLESS = frozenset(
    {
        *("--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--no-advice"),
        *("--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"),
    }
)
_RM_FLAGS: tuple[Argv, ...] = (
    (),
    *((flag,) for flag in ("-r", "-R", "-f", "-d", "-rf", "-fr", "-Rf", "-fR")),
    ("-r", "-f"),
    ("-f", "-r"),
)
_FIND_EXPRESSION_START = ("-", "(", "!", ")")
_FIND_GLOBALS = frozenset({"-H", "-L", "-P", "-D"})


def harmless_globals(argv: Argv) -> int:
    """How many of git's leading global options cannot change what it runs."""
    count = 0
    for word in argv[1:]:
        if word not in _GIT_HARMLESS:
            break
        count += 1
    return count


def rule_forms(argv: Argv, *, broad: bool) -> list[Argv]:
    """The argv forms a rule is tried on; ``broad`` for deny and ask rules."""
    forms = [argv]
    if not argv:
        return forms
    if argv[0] == "git" and (skip := harmless_globals(argv)):
        forms.append((argv[0], *argv[1 + skip :]))
    if not broad:
        return forms
    subcommands = _subcommand_forms(argv)
    forms += subcommands
    if argv[0] == "git":
        forms += _git_alias_forms(argv, [argv, *subcommands])
    if argv[0] == "find" and "-delete" in argv:
        starts = _find_starting_points(argv)
        forms += [("rm", *flags, *starts) for flags in _RM_FLAGS]
    return list(dict.fromkeys(forms))


def _subcommand_forms(argv: Argv) -> list[Argv]:
    """`name` + argv[i:] for each i where the subcommand may start after leading options."""
    forms: list[Argv] = []
    previous = ""
    for index in range(1, len(argv)):
        word = argv[index]
        if word == "--":
            if index + 1 < len(argv):
                forms.append((argv[0], *argv[index + 1 :]))
            break
        if len(word) > 1 and word[0] in "-+":
            previous = word
            continue
        if index > 1:
            forms.append((argv[0], *argv[index:]))
        # Only a word that may be the value of the option before it lets the scan go on.
        if not (previous.startswith("-") and "=" not in previous):
            break
        previous = ""
    return forms


def _git_aliases(argv: Argv) -> dict[str, str]:
    """Aliases defined with `-c alias.NAME=VALUE` (or `-calias.…`) on git's command line."""
    aliases: dict[str, str] = {}
    for index, word in enumerate(argv[1:], start=1):
        setting = argv[index + 1] if word == "-c" and index + 1 < len(argv) else None
        setting = word[2:] if word.startswith("-c") and len(word) > 2 else setting
        if setting and setting.lower().startswith("alias.") and "=" in setting:
            name, value = setting[len("alias.") :].split("=", 1)
            aliases[name.lower()] = value
    return aliases


def _git_alias_forms(argv: Argv, forms: list[Argv]) -> list[Argv]:
    aliases = _git_aliases(argv)
    found: list[Argv] = []
    for form in forms:
        value = aliases.get(form[1].lower()) if len(form) > 1 else None
        if value is None:
            continue
        try:
            words = tuple(shlex.split(value.removeprefix("!")))
        except ValueError:
            words = (value,)
        found.append((*words, *form[2:]) if value.startswith("!") else ("git", *words, *form[2:]))
    return found


def _find_starting_points(argv: Argv) -> Argv:
    index = 1
    while index < len(argv) and (argv[index] in _FIND_GLOBALS or argv[index].startswith("-O")):
        index += 2 if argv[index] == "-D" else 1
    starts: list[str] = []
    for word in argv[index:]:
        if word.startswith(_FIND_EXPRESSION_START):
            break
        starts.append(word)
    return tuple(starts) or (".",)


def git_shell_alias(argv: Argv) -> bool:
    """Whether `git -c alias.NAME=!…` defines an alias that runs shell code."""
    return argv[:1] == ("git",) and any(v.startswith("!") for v in _git_aliases(argv).values())
