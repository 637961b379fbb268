"""Bash words for the shell analyser: quote removal on tree-sitter nodes and argv rules."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

# Node types whose value is only known at run time; their source text stands in for it.
_EXPANSIONS = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
# Unquoted characters that make bash turn one word into other words: globs (extglob's `@(…)`
# too, should an inherited BASHOPTS turn it on) and brace expansion.
_GLOB = re.compile(r"[*?]|\[.*\]|[+@!]\(", re.DOTALL)
_BRACE = re.compile(r"\{.*(?:,|\.\.).*\}", re.DOTALL)
# An unquoted `~` bash expands: at a word's start, or after `=`/`:` in an assignment-like word.
_TILDE = re.compile(r"^~|[=:]~")
_BARE_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_ANSI_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
# A backslash-newline between two nodes is a line continuation: bash joins them into one word.
_CONTINUATION = re.compile(rb"(?:\\\r?\n)*")


@dataclass(frozen=True)
class Word:
    """One shell word after quote removal.

    ``value`` keeps the source text of any expansion (``$HOME``); ``literal`` is False when an
    expansion can change it at run time; ``pattern`` is True when unquoted glob or brace
    characters could turn it into other words (``brace`` says it is brace expansion); ``tilde``
    is True when bash would expand an unquoted ``~`` in it.
    """

    value: str
    literal: bool = True
    pattern: bool = False
    brace: bool = False
    tilde: bool = False


@dataclass(frozen=True)
class _Piece:
    value: str
    literal: bool
    bare: str  # unquoted source, for pattern detection; quoted text becomes NUL


def words_of(nodes: Sequence[Node], source: bytes) -> list[Word]:
    """Group nodes into words: touching nodes (or across a line continuation) are one word."""
    groups: list[list[Node]] = []
    for node in sorted(nodes, key=lambda n: n.start_byte):
        if groups and _CONTINUATION.fullmatch(source[groups[-1][-1].end_byte : node.start_byte]):
            groups[-1].append(node)
        else:
            groups.append([node])
    return [word_of(group, source) for group in groups]


def word_of(nodes: Sequence[Node], source: bytes) -> Word:
    """The word formed by adjacent nodes, quotes removed."""
    pieces: list[_Piece] = []
    for index, node in enumerate(nodes):
        following = nodes[index + 1] if index + 1 < len(nodes) else None
        # `$"…"` is a locale-translated string; the `$` is syntax, not text.
        if node.type == "$" and following is not None and following.type == "string":
            continue
        pieces.extend(_pieces(node, source))
    value = "".join(p.value for p in pieces)
    bare = "".join(p.bare for p in pieces)
    brace = bool(_BRACE.search(bare))
    pattern = brace or bool(_GLOB.search(bare))
    literal = all(p.literal for p in pieces)
    return Word(value, literal, pattern, brace, bool(_TILDE.search(bare)))


def unmodelled(word: Word) -> str | None:
    """Why bash may turn ``word`` into something other than its value, if it may.

    `~` and `~/…` are modelled (resolved against the home directory, as the rules are); other
    tilde forms (`~+`, `~-`, `~user`), globs, braces and expansions are not.
    """
    if not word.literal:
        return f"{word.value} is expanded at run time"
    if word.brace:
        return f"{word.value} is a brace expansion"
    if word.pattern:
        return f"{word.value} is a glob pattern"
    if word.tilde and not (word.value == "~" or word.value.startswith("~/")):
        return f"{word.value} is a tilde expansion"
    if word.tilde and _TILDE.search(word.value[1:]):
        return f"{word.value} is a tilde expansion"
    return None


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _pieces(node: Node, source: bytes) -> Iterator[_Piece]:
    text = _text(node, source)
    kind = node.type
    if kind in _EXPANSIONS:
        yield _Piece(text, False, "\0")
    elif kind == "word":
        yield _Piece(_unescape_bare(text), True, _BARE_ESCAPE.sub("\0", text))
    elif kind == "raw_string":
        yield _Piece(text[1:-1], True, "\0")
    elif kind == "ansi_c_string":
        yield _Piece(_ANSI_ESCAPE.sub(_ansi_char, text[2:-1]), True, "\0")
    elif kind in ("string", "translated_string"):
        yield from _double_quoted(node, source)
    elif node.child_count == 0:
        yield _Piece(text, True, text)
    else:
        yield from _spanned(node, source)


def _spanned(node: Node, source: bytes) -> Iterator[_Piece]:
    """Pieces of a container node (concatenation, assignment, …) including text between children."""
    position = node.start_byte
    for child in node.children:
        gap = source[position : child.start_byte].decode("utf-8", "replace")
        if gap:
            yield _Piece(_unescape_bare(gap), True, gap)
        yield from _pieces(child, source)
        position = child.end_byte
    tail = source[position : node.end_byte].decode("utf-8", "replace")
    if tail:
        yield _Piece(_unescape_bare(tail), True, tail)


def _double_quoted(node: Node, source: bytes) -> Iterator[_Piece]:
    inner = [c for c in node.children if c.type not in ('"', '$"')]
    position = node.start_byte + 1
    for child in inner:
        yield _Piece(_unescape_dq(source[position : child.start_byte]), True, "\0")
        if child.type == "string_content" or child.child_count == 0:
            yield _Piece(_unescape_dq(source[child.start_byte : child.end_byte]), True, "\0")
        else:
            yield _Piece(_text(child, source), False, "\0")
        position = child.end_byte
    yield _Piece(_unescape_dq(source[position : node.end_byte - 1]), True, "\0")


def _unescape_bare(text: str) -> str:
    return _BARE_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], text)


def _unescape_dq(raw: bytes) -> str:
    return _DQ_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], raw.decode("utf-8", "replace"))


def _ansi_char(match: re.Match[str]) -> str:
    escape = match[1]
    if escape[0] in "xuU" and len(escape) > 1:
        code = int(escape[1:], 16)
        return chr(code) if code <= 0x10FFFF else match[0]
    if escape[0] in "01234567":
        return chr(int(escape, 8))
    if escape[0] == "c" and len(escape) == 2:
        return chr(ord(escape[1].upper()) ^ 0x40)
    return _ANSI_SIMPLE.get(escape, match[0])


# Only trusted system directories are stripped: `./git` or `/tmp/x/git` must not pass for `git`.
_SYSTEM_BIN = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/")


def command_name(value: str) -> str:
    """argv[0] as a rule sees it: `/usr/bin/rm` -> `rm`; other paths stay as written."""
    for prefix in _SYSTEM_BIN:
        rest = value.removeprefix(prefix)
        if rest != value and rest and "/" not in rest:
            return rest
    return value


def scan_options(
    argv: Sequence[Word], start: int, takes_value: frozenset[str], *, plus: bool = False
) -> tuple[tuple[str, ...], int]:
    """getopt-style scan from ``argv[start]``: the options seen and the index of the first operand.

    Short clusters are split (`-iu NAME` is `-i -u NAME`); an option in ``takes_value`` eats the
    next word unless its value is attached (`-n5`, `--user=x`).
    """
    seen: list[str] = []
    index = start
    while index < len(argv):
        value = argv[index].value
        if value == "--":
            return tuple(seen), index + 1
        if value.startswith("--"):
            seen.append(value.split("=", 1)[0])
            index += 1 + (value in takes_value)
            continue
        if len(value) < 2 or value[0] not in ("-+" if plus else "-"):
            break
        index += 1
        for position, letter in enumerate(value[1:], start=1):
            seen.append("-" + letter)
            if "-" + letter in takes_value:
                index += position == len(value) - 1
                break
    return tuple(seen), index


@dataclass(frozen=True)
class _WrapperRule:
    """How a wrapper command (`env`, `nice`, `sudo` …) finds the command it runs."""

    takes_value: frozenset[str] = frozenset()
    operands: int = 0  # operands before the command, e.g. timeout's DURATION
    assignments: bool = False  # env: NAME=value words before the command
    inert: frozenset[str] = frozenset()  # options after which nothing runs (`command -v`)
    opaque: frozenset[str] = frozenset()  # options whose effect we cannot follow (`env -S`)
    visible: bool = (
        False  # list the wrapper too: it changes privileges or where arguments come from
    )
    origin: str | None = None


@dataclass(frozen=True)
class Unwrapped:
    """The command a wrapper runs, the variables it sets and anything that defeats analysis."""

    inner: tuple[Word, ...]
    assigned: tuple[str, ...]
    problem: str | None
    visible: bool
    origin: str | None


def _values(*names: str) -> frozenset[str]:
    return frozenset(names)


_WRAPPERS: dict[str, _WrapperRule] = {
    "env": _WrapperRule(
        _values("-u", "--unset", "-C", "--chdir", "-S", "--split-string"),
        assignments=True,
        # -C moves the command to another directory: its relative paths are not the gate's.
        opaque=_values("-S", "--split-string", "-C", "--chdir"),
    ),
    "command": _WrapperRule(inert=_values("-v", "-V")),
    "builtin": _WrapperRule(),
    "exec": _WrapperRule(_values("-a")),
    "nohup": _WrapperRule(),
    "time": _WrapperRule(),
    "coproc": _WrapperRule(),
    "setsid": _WrapperRule(),
    "nice": _WrapperRule(_values("-n", "--adjustment")),
    "timeout": _WrapperRule(_values("-s", "--signal", "-k", "--kill-after"), operands=1),
    "stdbuf": _WrapperRule(_values("-i", "-o", "-e", "--input", "--output", "--error")),
    "sudo": _WrapperRule(
        _values(
            *("-C", "-D", "-g", "-h", "-p", "-R", "-r", "-T", "-t", "-U", "-u"),
            *("--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot"),
            *("--role", "--type", "--command-timeout", "--other-user", "--user"),
        ),
        opaque=_values("-D", "--chdir"),
        visible=True,
        origin="sudo",
    ),
    "doas": _WrapperRule(_values("-u", "-C"), visible=True, origin="sudo"),
    "xargs": _WrapperRule(
        _values(
            *("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"),
            *("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars"),
            "--process-slot-var",
        ),
        visible=True,
        origin="xargs",
    ),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def unwrap(name: str, argv: Sequence[Word]) -> Unwrapped | None:
    """Split a wrapper invocation; None when ``name`` is not a wrapper."""
    rule = _WRAPPERS.get(name)
    if rule is None:
        return None
    seen, index = scan_options(argv, 1, rule.takes_value)
    assigned: list[str] = []
    while rule.assignments and index < len(argv) and _ASSIGNMENT.match(argv[index].value):
        assigned.append(argv[index].value.split("=", 1)[0].rstrip("+"))
        index += 1
    index += rule.operands
    opaque = sorted(rule.opaque.intersection(seen))
    problem = f"{name} {opaque[0]} is not analysable" if opaque else None
    inner = () if rule.inert.intersection(seen) else tuple(argv[index:])
    return Unwrapped(inner, tuple(assigned), problem, rule.visible, rule.origin)


POSIX_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})
_SHELL_VALUES = _values("-o", "-O", "--rcfile", "--init-file")
# Options that make the shell read startup files, i.e. run code we cannot see.
_SHELL_STARTUP = _values("-i", "-l", "--login", "--rcfile", "--init-file", "--interactive")


@dataclass(frozen=True)
class ShellScript:
    """What `bash [options] -c SCRIPT` runs."""

    uses_c: bool
    script: Word | None
    reads_startup_files: bool


def shell_script(argv: Sequence[Word]) -> ShellScript:
    """The `-c` script of a POSIX shell invocation (the first operand once `-c` is given)."""
    seen, index = scan_options(argv, 1, _SHELL_VALUES, plus=True)
    script = argv[index] if index < len(argv) else None
    return ShellScript("-c" in seen, script, bool(_SHELL_STARTUP.intersection(seen)))


_INTERPRETER = re.compile(
    r"(?:ba|da|z|k|mk|a|c|tc|fi)?sh|busybox|python[0-9.]*|pypy[0-9.]*|node(?:js)?|deno|bun"
    r"|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua(?:jit|[0-9.]*)|tclsh[0-9.]*|wish|R|Rscript"
    r"|pwsh|powershell|osascript|julia|guile|racket|sbcl|ghci|jshell|scala|groovy|expect"
    r"|gdb|lldb|ed|ex|vim?|nvim|sqlite3?|psql|mysql|mariadb"
)


def is_interpreter(name: str) -> bool:
    """Whether stdin can be code for ``name``: shells, runtimes, tools with a `!` escape."""
    return bool(_INTERPRETER.fullmatch(name))


# Commands whose argument is code, or that rebind what a later name runs: never analysable.
NOT_ANALYSABLE = frozenset({"eval", "source", ".", "trap", "alias", "hash", "enable", "fc"})
# Builtins that take variable names: bash evaluates a subscript in them, so the quoted
# argument `'a[$(cmd)]'` runs cmd.
_NAME_TAKERS = frozenset(
    {
        *("printf", "read", "test", "[", "let", "declare", "typeset", "local", "export"),
        *("readonly", "unset", "mapfile", "readarray", "getopts", "wait"),
    }
)
_SUBSCRIPT_CODE = re.compile(r"\[.*[$`]", re.DOTALL)


def builtin_problem(name: str, argv: Sequence[Word]) -> str | None:
    """Why a builtin's plain-looking arguments may still run code, if they may."""
    if name in NOT_ANALYSABLE:
        return f"{name} is not analysable"
    if name in ("mapfile", "readarray") and any(w.value.startswith("-C") for w in argv[1:]):
        return f"{name} -C runs a callback"
    if name in _NAME_TAKERS and any(_SUBSCRIPT_CODE.search(w.value) for w in argv[1:]):
        return f"{name} evaluates an array subscript with an expansion"
    return None


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def find_exec_commands(argv: Sequence[Word]) -> list[tuple[Word, ...]]:
    """The commands `find … -exec CMD … ;` (or `+`) runs."""
    commands: list[tuple[Word, ...]] = []
    index = 1
    while index < len(argv):
        if argv[index].value not in _FIND_EXEC:
            index += 1
            continue
        end = index + 1
        while end < len(argv) and argv[end].value not in (";", "+"):
            end += 1
        if end > index + 1:
            commands.append(tuple(argv[index + 1 : end]))
        index = end + 1
    return commands


_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def find_write_targets(argv: Sequence[Word]) -> list[Word]:
    """Files `find -fprint FILE` (and -fprint0, -fprintf, -fls) writes."""
    return [argv[i + 1] for i in range(1, len(argv) - 1) if argv[i].value in _FIND_WRITES]


def tee_targets(argv: Sequence[Word]) -> list[Word]:
    """Files `tee` writes; GNU tee accepts options anywhere until `--`."""
    targets: list[Word] = []
    options_done = False
    for word in argv[1:]:
        if word.value == "--" and not options_done:
            options_done = True
        elif options_done or not word.value.startswith("-") or word.value == "-":
            targets.append(word)
    return targets


# Variables that change which program runs or inject code into it. A blocklist is never complete;
# it is defence in depth on top of the rule layer, not a substitute for it.
_HAZARDOUS_VARIABLES = frozenset(
    {
        *("PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"),
        *("HOME", "XDG_CONFIG_HOME", "EDITOR", "VISUAL", "PAGER", "SSH_ASKPASS", "BROWSER"),
        *("PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "NODE_PATH"),
        *("PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS"),
        # What an allowlisted read reaches: rg's config (`--pre`, `--follow`), the shell's
        # globbing (GLOBIGNORE turns on dotglob) and tilde forms (`~-` is OLDPWD).
        *("RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "GLOBIGNORE", "OLDPWD", "CDPATH"),
        *("LESSOPEN", "LESSCLOSE"),
    }
)
_HAZARDOUS_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_", "GIT_")
_HARMLESS_GIT_VARIABLES = frozenset(
    {
        *("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE"),
        *("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE"),
        *("GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS"),
    }
)


def is_hazardous_variable(name: str) -> bool:
    """Whether assigning ``name`` can make an allowed command run other code."""
    if name in _HARMLESS_GIT_VARIABLES:
        return False
    return name in _HAZARDOUS_VARIABLES or name.startswith(_HAZARDOUS_PREFIXES)
