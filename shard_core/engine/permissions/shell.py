"""Shell-command analysis for the permission gate: a bash command as the simple commands it runs.

The gate never matches a rule against the raw string. ``analyze`` parses the command with
tree-sitter's bash grammar and lists every simple command bash would run — across lists,
pipelines, subshells, groups, control flow, function bodies, ``$(…)``, backticks, ``<(…)``,
``>(…)``, ``bash -c '…'``, heredocs fed to a shell, ``xargs``, ``find -exec`` and wrappers
(``env``, ``command``, ``nice`` …) — with the files it writes through redirects and ``tee``.

A gate allows the whole command only when ``ok`` is True and every listed command is allowed.
When ``ok`` is False the command list is best effort (useful for deny rules and for reporting);
it must never be the reason to allow.

Choices a rule layer should know:

- ``sudo``/``doas`` and ``xargs`` are listed themselves *and* as the command they run (origin
  "sudo" / "xargs"), so ``sudo rm`` needs a rule for ``sudo``; the other wrappers are transparent.
- ``bash -c SCRIPT`` is replaced by the commands of SCRIPT (origin "bash -c"); a script that is
  not a literal, or options that read startup files (``-i``, ``-l``, ``--rcfile``), make ok False.
- An interpreter fed from a pipe (``curl x | sh``) is simply listed; fed from a heredoc or
  here-string it also makes ok False (for a POSIX shell the heredoc is analysed too).
- ``argv[0]`` is normalised only for trusted system directories (``/usr/bin/rm`` -> ``rm``); a
  relative or other absolute path (``./git``) stays as written, so no rule for ``git`` matches it.
- ``writes`` leaves out ``/dev/null``, ``/dev/stdout`` and ``/dev/stderr`` and fd duplications
  (``2>&1``); ``reads`` lists input redirects (``< f``, ``$(< f)``). Paths are as written (``~``
  and relative paths are not resolved). A redirect target bash would expand in a way the gate
  does not model (``$X``, a glob, ``~+``) makes ok False. ``find -fprint FILE`` and ``tee`` write
  too; other writing commands (``cp``, ``sed -i``, ``dd of=``) are the rule layer's business.
- A bare redirection (``> f``, ``< f``) is listed with an empty ``argv`` so that its target is
  not lost.
- Assigning a variable that changes what runs (``PATH``, ``LD_PRELOAD``, ``GIT_SSH_COMMAND``,
  see ``shell_words.is_hazardous_variable``) makes ok False.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeGuard

from tree_sitter import Node, Parser, Tree

from shard_core.engine.permissions.command_forms import git_shell_alias
from shard_core.engine.permissions.shell_words import (
    POSIX_SHELLS,
    Word,
    builtin_problem,
    command_name,
    find_exec_commands,
    find_write_targets,
    is_hazardous_variable,
    is_interpreter,
    shell_script,
    tee_targets,
    unmodelled,
    unwrap,
    word_of,
    words_of,
)

__all__ = ["ShellAnalysis", "SimpleCommand", "analyze"]


@dataclass(frozen=True)
class SimpleCommand:
    """One command bash would run.

    ``argv``: words after quote removal and wrapper unwrapping; an expansion keeps its source text
    (``$HOME``). ``text``: the source of the command it came from, for reporting. ``writes``: files
    its redirects (or ``tee``) write. ``origin``: how it was found — "top", "substitution",
    "process_substitution", "subshell", "function", "bash -c", "heredoc", "xargs", "sudo",
    "find -exec". ``reads``: files its input redirects read. ``words``: ``argv`` as shell words
    (what bash may still expand in them: globs, tilde forms).
    """

    argv: tuple[str, ...]
    text: str
    writes: tuple[str, ...] = ()
    origin: str = "top"
    reads: tuple[str, ...] = ()
    words: tuple[Word, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class ShellAnalysis:
    """The simple commands of a shell command, and why it cannot be trusted when ``ok`` is False."""

    commands: tuple[SimpleCommand, ...]
    ok: bool
    problems: tuple[str, ...] = ()

    @property
    def writes(self) -> tuple[str, ...]:
        """Every write target, in order, without repeats."""
        return tuple(dict.fromkeys(path for c in self.commands for path in c.writes))


_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})
_READ_OPERATORS = frozenset({"<", "<&"})
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_NESTED_ORIGINS = {
    "command_substitution": "substitution",
    "process_substitution": "process_substitution",
    "subshell": "subshell",
    "function_definition": "function",
}
# Node types whose text between children is content, not syntax (heredoc lines, string text).
_TEXT_HOLDERS = frozenset({"heredoc_body", "string", "translated_string", "comment"})
_BLANK = re.compile(rb"(?:\s|\\\r?\n)*")
# Each bash -c / heredoc level is parsed again; legitimate commands never nest this deep.
_MAX_DEPTH = 8
_MAX_NESTING = 120  # syntax-tree levels; real commands stay far below
_TOO_DEEP = "command nests too deeply to analyse"


@dataclass
class _Redirects:
    """What a command's redirects do: files written, stray words, code fed to stdin."""

    writes: list[str] = field(default_factory=list[str])
    reads: list[str] = field(default_factory=list[str])
    extra_words: list[Node] = field(default_factory=list[Node])
    feeds: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])


@dataclass(frozen=True)
class _Site:
    """Where a command was written: shared by every command unwrapped from it."""

    text: str
    writes: tuple[str, ...]
    reads: tuple[str, ...] = ()


def analyze(command: str) -> ShellAnalysis:
    """Split ``command`` into the simple commands bash would run; fail closed when unsure."""
    return _analyze(command, depth=0, origin="top")


def _analyze(command: str, depth: int, origin: str) -> ShellAnalysis:
    try:
        source = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return ShellAnalysis((), False, ("command is not valid text",))
    root = _parse(source).root_node
    error = _first_error(root, source) or _skipped_text(root, source)
    if not error and all(child.type == "comment" for child in root.named_children):
        return ShellAnalysis((), False, ("empty command",))
    walker = _Walker(source, depth)
    try:
        walker.visit_children(root, origin)
    except RecursionError:
        walker.problems.append(_TOO_DEEP)
    problems = tuple(dict.fromkeys(([error] if error else []) + walker.problems))
    return ShellAnalysis(tuple(walker.commands), not problems, problems)


@functools.cache
def _parser() -> Parser:
    from tree_sitter_language_pack import get_parser

    return get_parser("bash")


_parse_lock = threading.Lock()


def _parse(source: bytes) -> Tree:
    # A tree-sitter Parser is not safe to share between threads; parsing is short.
    with _parse_lock:
        return _parser().parse(source)


def _first_error(root: Node, source: bytes) -> str | None:
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            return f"parse error at {_position(node.start_byte, source)}"
        if node.is_missing:
            return f"parse error at {_position(node.start_byte, source)} (missing {node.type})"
        stack.extend(reversed(node.children))
    return "parse error"


def _skipped_text(root: Node, source: bytes) -> str | None:
    """Source text no tree node accounts for: the grammar dropped it, so we cannot vouch for it."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in _TEXT_HOLDERS:
            continue
        position = node.start_byte
        for child in [*node.children, None]:
            end = node.end_byte if child is None else child.start_byte
            gap = source[position:end]
            if not _BLANK.fullmatch(gap) and not _is_dropped_dash(node, gap):
                text = gap.decode("utf-8", "replace").strip()
                return f"unparsed text at {_position(position, source)}: {text!r}"
            if child is not None:
                stack.append(child)
                position = child.end_byte
    return None


def _is_dropped_dash(node: Node, gap: bytes) -> bool:
    # tree-sitter drops a `-` operand just before a heredoc (`kubectl apply -f - <<EOF`);
    # _Walker._redirected puts it back.
    if node.type != "redirected_statement" or gap.strip() != b"-":
        return False
    owner = _redirect_owner(node.child_by_field_name("body"))
    return (
        owner is not None
        and owner.type == "command"
        and _runs_a_program(owner.child_by_field_name("name"))
    )


def _redirect_owner(body: Node | None) -> Node | None:
    """The statement a redirect really belongs to.

    tree-sitter hangs `a && b > f` and `a | b > f` on the whole list; bash gives the redirect to
    the last command alone.
    """
    while body is not None and body.type in ("list", "pipeline") and body.named_children:
        body = body.named_children[-1]
    return body


def _position(offset: int, source: bytes) -> str:
    """1-based line:column of a byte offset, counting characters rather than bytes."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    line = source.count(b"\n", 0, offset) + 1
    column = len(source[line_start:offset].decode("utf-8", "replace")) + 1
    return f"{line}:{column}"


class _Walker:
    """Collects simple commands and problems from one parse tree."""

    def __init__(self, source: bytes, depth: int) -> None:
        self.source = source
        self.depth = depth
        self.commands: list[SimpleCommand] = []
        self.problems: list[str] = []
        self.nesting = 0

    def text(self, node: Node, end: int | None = None) -> str:
        return self.source[node.start_byte : end or node.end_byte].decode("utf-8", "replace")

    def visit_children(self, node: Node, origin: str) -> None:
        for child in node.named_children:
            self.visit(child, origin)

    def visit(self, node: Node, origin: str) -> None:
        # An explicit bound: the interpreter's recursion limit varies (test tools raise it).
        if self.nesting >= _MAX_NESTING:
            if _TOO_DEEP not in self.problems:
                self.problems.append(_TOO_DEEP)
            return
        self.nesting += 1
        try:
            self._visit(node, origin)
        finally:
            self.nesting -= 1

    def _visit(self, node: Node, origin: str) -> None:
        match node.type:
            case "command":
                self._command(node, origin)
            case "redirected_statement":
                self._redirected(node, origin)
            case "declaration_command" | "unset_command":
                self._declaration(node, origin)
            case "variable_assignment":
                self._assignment(node, origin)
            case "test_command" | "arithmetic_expansion":
                self._arithmetic(node, origin)
            case "command_substitution":
                self._substitution(node)
            case "comment":
                pass
            case _:
                self.visit_children(node, _NESTED_ORIGINS.get(node.type, origin))

    # -- statements ---------------------------------------------------------------------------

    def _command(
        self, node: Node, origin: str, outer: Sequence[Node] = (), dash: bool = False
    ) -> None:
        name = node.child_by_field_name("name")
        own = node.children_by_field_name("redirect")
        redirects = self._redirects([*own, *outer])
        start = len(self.commands)
        if _runs_a_program(name):
            arguments = [c for i, c in enumerate(node.children) if _field(node, i) == "argument"]
            argv = words_of([name, *arguments, *redirects.extra_words], self.source)
            argv += [Word("-")] if dash else []
            text = self.text(node, _span_end(node, outer))
            site = _Site(text, tuple(redirects.writes), tuple(redirects.reads))
            self._expand(tuple(argv), site, origin)
        else:
            self._attach(start, redirects, self.text(node), origin)
        self._feed_interpreters(start, redirects.feeds)
        self.visit_children(node, origin)

    def _redirected(self, node: Node, origin: str) -> None:
        redirects = node.children_by_field_name("redirect")
        body = self._visit_all_but_owner(node.child_by_field_name("body"), origin)
        if body is not None and body.type == "command":
            gap = self.source[body.end_byte : redirects[0].start_byte] if redirects else b""
            self._command(body, origin, redirects, dash=_is_dropped_dash(node, gap))
        else:
            found = self._redirects(redirects)
            if found.extra_words:
                where = _position(node.start_byte, self.source)
                self.problems.append(f"unexpected words after a redirect at {where}")
            start = len(self.commands)
            if body is not None:
                self.visit(body, origin)
            self._attach(start, found, self.text(node), origin)
            self._feed_interpreters(start, found.feeds)
        for redirect in redirects:
            self.visit(redirect, origin)

    def _substitution(self, node: Node) -> None:
        """`$(< f)` reads f without running a command: listed as a bare redirection."""
        own = [c for c in node.named_children if c.type == "file_redirect"]
        start = len(self.commands)
        self.visit_children(node, "substitution")
        self._attach(start, self._redirects(own), self.text(node), "substitution")

    def _visit_all_but_owner(self, body: Node | None, origin: str) -> Node | None:
        """Visit the statements before the one a redirect belongs to; return that one."""
        owner = _redirect_owner(body)
        while body is not None and body != owner:
            *head, body = body.named_children
            for statement in head:
                self.visit(statement, origin)
        return owner

    def _declaration(self, node: Node, origin: str) -> None:
        keyword = Word(self.text(node.children[0]))
        argv = (keyword, *words_of(node.named_children, self.source))
        self._add(argv, _Site(self.text(node), ()), origin)
        self.visit_children(node, origin)

    def _assignment(self, node: Node, origin: str) -> None:
        name = node.child_by_field_name("name")
        if name is not None and is_hazardous_variable(self.text(name)):
            self.problems.append(f"sets {self.text(name)}, which changes what runs")
        self.visit_children(node, origin)

    def _arithmetic(self, node: Node, origin: str) -> None:
        # Bash evaluates array subscripts in arithmetic operands, so a single-quoted
        # `'a[$(cmd)]'` still runs cmd; tree-sitter sees only a string.
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type in ("raw_string", "ansi_c_string"):
                if "$(" in self.text(child) or "`" in self.text(child):
                    self.problems.append(
                        f"quoted command substitution in arithmetic: {self.text(child)}"
                    )
            else:
                stack.extend(child.named_children)
        self.visit_children(node, origin)

    # -- redirects ----------------------------------------------------------------------------

    def _redirects(self, nodes: Sequence[Node]) -> _Redirects:
        found = _Redirects()
        for node in nodes:
            if node.type == "file_redirect":
                self._file_redirect(node, found)
            elif node.type == "herestring_redirect":
                value = word_of(node.named_children, self.source).value
                found.feeds.append(("here-string", value))
            elif node.type == "heredoc_redirect":
                self._heredoc(node, found)
        return found

    def _file_redirect(self, node: Node, found: _Redirects) -> None:
        targets = node.children_by_field_name("destination")
        if not targets:
            return  # `>&-` closes a descriptor
        # tree-sitter hands words after the target (`ls > f -l`) to the redirect; bash gives
        # them to the command.
        found.extra_words.extend(targets[1:])
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = word_of([targets[0]], self.source)
        writes = operator in _WRITE_OPERATORS
        if not (writes or operator in _READ_OPERATORS) or target.value in _NOT_FILES:
            return
        if targets[0].type == "process_substitution":
            return  # `> >(cmd)` feeds cmd, which is listed on its own
        if operator in (">&", "<&") and (target.value.isdigit() or target.value == "-"):
            return  # fd duplication, not a file
        problem = _target_problem("write" if writes else "read", target)
        if problem:
            self.problems.append(problem)
        (found.writes if writes else found.reads).append(target.value)

    def _heredoc(self, node: Node, found: _Redirects) -> None:
        for child in node.named_children:
            if child.type == "heredoc_body":
                found.feeds.append(("heredoc", self.text(child)))
            elif child.type == "file_redirect":
                # `sh <<EOF > out` puts the `> out` inside the heredoc node.
                self._file_redirect(child, found)

    def _feed_interpreters(self, start: int, feeds: Sequence[tuple[str, str]]) -> None:
        fed = [c.argv[0] for c in self.commands[start:] if c.argv and is_interpreter(c.argv[0])]
        if not fed:
            return
        for kind, code in feeds:
            for name in dict.fromkeys(fed):
                self.problems.append(f"{kind} feeds an interpreter: {name}")
            if any(name in POSIX_SHELLS for name in fed):
                self._nested(code, "heredoc")

    def _attach(self, start: int, found: _Redirects | _Site, text: str, origin: str) -> None:
        """Give redirect targets to every command found since ``start`` (or to a bare entry)."""
        writes, reads = tuple(found.writes), tuple(found.reads)
        if not writes and not reads:
            return
        if len(self.commands) == start:
            self.commands.append(SimpleCommand((), text, writes, origin, reads))
            return
        self.commands[start:] = [
            replace(
                c,
                writes=tuple(dict.fromkeys((*c.writes, *writes))),
                reads=tuple(dict.fromkeys((*c.reads, *reads))),
            )
            for c in self.commands[start:]
        ]

    # -- argv ---------------------------------------------------------------------------------

    def _expand(self, argv: tuple[Word, ...], site: _Site, origin: str) -> None:
        head = argv[0]
        if not head.literal or head.pattern:
            self.problems.append(f"dynamic command name {head.value}")
        name = command_name(head.value)
        split = unwrap(name, argv)
        if split is None:
            self._leaf(name, argv, site, origin)
            return
        if split.problem:
            self.problems.append(split.problem)
        for variable in split.assigned:
            if is_hazardous_variable(variable):
                self.problems.append(f"sets {variable}, which changes what runs")
        if split.visible or not split.inner:
            self._add(argv, site, origin)
        if split.inner:
            self._expand(split.inner, site, split.origin or origin)

    def _leaf(self, name: str, argv: tuple[Word, ...], site: _Site, origin: str) -> None:
        if name in POSIX_SHELLS and self._shell_c(name, argv, site):
            return
        extra: tuple[str, ...] = ()
        if name in ("tee", "find"):
            targets = tee_targets(argv) if name == "tee" else find_write_targets(argv)
            self.problems.extend(p for t in targets if (p := _target_problem("write", t)))
            extra = tuple(t.value for t in targets if t.value not in _NOT_FILES)
        self._add(argv, replace(site, writes=site.writes + extra), origin)
        if git_shell_alias((name, *(w.value for w in argv[1:]))):
            self.problems.append("git -c alias.…=!… runs shell code")
        if name == "find":
            for inner in find_exec_commands(argv):
                self._expand(inner, site, "find -exec")

    def _shell_c(self, name: str, argv: tuple[Word, ...], site: _Site) -> bool:
        """Analyse `bash -c SCRIPT` in place of bash itself; False when there is no `-c`."""
        parsed = shell_script(argv)
        if not parsed.uses_c:
            return False
        if parsed.reads_startup_files:
            self.problems.append(f"{name} reads startup files, which may run anything")
        if parsed.script is None:
            self.problems.append(f"{name} -c without a script")
            return True
        if not parsed.script.literal:
            self.problems.append(f"{name} -c script is not a literal: {parsed.script.value}")
        start = len(self.commands)
        self._nested(parsed.script.value, "bash -c")
        self._attach(start, site, site.text, "bash -c")
        return True

    def _nested(self, script: str, origin: str) -> None:
        if self.depth >= _MAX_DEPTH:
            self.problems.append("shell code nested too deeply to analyse")
            return
        inner = _analyze(script, self.depth + 1, origin)
        self.commands.extend(inner.commands)
        self.problems.extend(f"{origin}: {problem}" for problem in inner.problems)

    def _add(self, argv: Sequence[Word], site: _Site, origin: str) -> None:
        values = (command_name(argv[0].value), *(w.value for w in argv[1:]))
        problem = builtin_problem(values[0], argv)
        if problem:
            self.problems.append(problem)
        command = SimpleCommand(values, site.text, site.writes, origin, site.reads, tuple(argv))
        self.commands.append(command)


def _target_problem(kind: str, target: Word) -> str | None:
    """Why a redirect's (or tee's) file cannot be judged as written, if it cannot."""
    if not target.literal:
        return f"dynamic {kind} target {target.value}"
    problem = unmodelled(target)
    return f"{kind} target: {problem}" if problem else None


def _runs_a_program(name: Node | None) -> TypeGuard[Node]:
    if name is None or name.end_byte == name.start_byte:  # a MISSING name is empty
        return False
    # `a && (( x ))` parses as a command named `(( x ))`; it is arithmetic, not a program.
    inner = name.named_children
    arithmetic = len(inner) == 1 and inner[0].type == "arithmetic_expansion"
    return not (arithmetic and (name.text or b"").startswith(b"(("))


def _field(node: Node, index: int) -> str | None:
    return node.field_name_for_child(index)


def _span_end(node: Node, outer: Sequence[Node]) -> int:
    """End of a command's text including its trailing redirects, but not a heredoc's body."""
    end = node.end_byte
    for redirect in outer:
        if redirect.type == "heredoc_redirect":
            heads = [c for c in redirect.children if c.type in ("heredoc_start", "file_redirect")]
            end = max([end, *(c.end_byte for c in heads)])
        else:
            end = max(end, redirect.end_byte)
    return end
