"""Bash calls judged part by part: every simple command and every file it writes is one check.

A call is allowed only if every part is; any denied part denies it (and names that part); a
command the analyser cannot vouch for (`ok` False, or an exception) asks — never allows, though
its best-effort parts can still deny. A part's command is checked against Bash rules, its writes
(`> f`, `>> f`, `tee f`) against Edit/Write rules and the workspace edge, as the `write` tool,
and its input redirects (`< f`, `$(< f)`) against Read rules and the workspace edge, as `read`.
Paths are judged relative to the workspace, so once a command changes directory (`cd`,
`pushd`, `popd`) the read-only allowlist steps aside and a relative redirect target asks.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shard_core.engine.permissions.checks import Check, RuleBook, Verdict, evaluate_check
from shard_core.engine.permissions.checks import rule_matches as _matches
from shard_core.engine.permissions.paths import PathTarget, resolve_target
from shard_core.engine.permissions.readonly import is_read_only_command
from shard_core.engine.permissions.shell import ShellAnalysis, SimpleCommand, analyze
from shard_core.engine.permissions.shell_words import Word
from shard_core.engine.permissions.suggest import suggest_command, suggest_path

__all__ = ["BashJudgement", "BashPart", "judge_bash"]

_CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})


@dataclass(frozen=True)
class BashPart:
    """One simple command with its verdicts: the command itself first, then each write."""

    text: str
    argv: tuple[str, ...]
    verdicts: tuple[Verdict, ...]
    suggestions: tuple[str | None, ...] = ()

    @property
    def verdict(self) -> Verdict:
        return max(self.verdicts, key=lambda v: v.weight)

    @property
    def command(self) -> str:
        return shlex.join(self.argv) if self.argv else self.text

    @property
    def wanted_rules(self) -> list[str | None]:
        """What would allow each asking check of this part."""
        return [
            s for v, s in zip(self.verdicts, self.suggestions, strict=True) if v.decision == "ask"
        ]

    @property
    def rule_text(self) -> str | None:
        verdict = self.verdict
        if verdict.decision != "allow":
            return verdict.rule_text
        rules = dict.fromkeys(v.rule_text for v in self.verdicts if v.rule_text)
        return ", ".join(rules) or None


@dataclass(frozen=True)
class BashJudgement:
    parts: tuple[BashPart, ...]
    ok: bool
    problems: tuple[str, ...] = ()


def judge_bash(command: object, cwd: Path, book: RuleBook, *, tool: str = "bash") -> BashJudgement:
    """Analyse `command` and judge each part; unanalysable input gives `ok=False`, no parts.
    `tool` is the command tool that runs it (its own rules and Bash rules cover it)."""
    if not isinstance(command, str) or not command.strip():
        return BashJudgement((), False, ("no command given",))
    try:
        analysis = analyze(command)
    except Exception as exc:  # the analyser's failure is an ask, whatever it was
        return BashJudgement((), False, (f"could not analyse the command: {exc!r}",))
    moves = any(c.argv[:1] and c.argv[0] in _CHANGES_DIRECTORY for c in analysis.commands)
    parts = tuple(_judge_part(c, analysis, cwd, book, moves, tool) for c in analysis.commands)
    problems = analysis.problems or (() if parts else ("no command found",))
    return BashJudgement(parts, analysis.ok and bool(parts), problems)


def _judge_part(
    command: SimpleCommand,
    analysis: ShellAnalysis,
    cwd: Path,
    book: RuleBook,
    moves: bool,
    tool: str,
) -> BashPart:
    verdicts: list[Verdict] = []
    suggestions: list[str | None] = []
    if command.argv:
        readonly = analysis.ok and not analysis.writes and not moves
        words = command.words or tuple(Word(a) for a in command.argv)
        default = readonly and is_read_only_command(
            command.argv, words[1:], cwd, _guarded_read(book)
        )
        check = Check(tool, f"`{command.text}`", argv=command.argv)
        verdicts.append(evaluate_check(check, book, default_allow=default))
        suggestions.append(suggest_command(command.argv, book.rules.deny))
    for as_tool, paths in (("read", command.reads), ("write", command.writes)):
        for raw in paths:
            verdict, suggestion = _path_verdict(as_tool, raw, cwd, book, moves)
            verdicts.append(verdict)
            suggestions.append(suggestion)
    return BashPart(command.text, command.argv, tuple(verdicts), tuple(suggestions))


def _path_verdict(
    tool: str, raw: str, cwd: Path, book: RuleBook, moves: bool
) -> tuple[Verdict, str | None]:
    """A redirect's file, judged as the `read`/`write` tool would judge that path."""
    doing = "reading" if tool == "read" else "writing"
    if moves and not os.path.isabs(os.path.expanduser(raw)):
        reason = f"cannot judge {doing} {raw!r}: the command changes directory first"
        return Verdict("ask", reason, ask="unclear"), None
    try:
        target = resolve_target(raw, cwd)
    except ValueError as exc:
        return Verdict("ask", f"cannot judge {doing} {raw!r}: {exc}", ask="unclear"), None
    read = tool == "read"
    check = Check(tool, f"{doing} {raw}", read_only=read, target=target)
    return evaluate_check(check, book, default_allow=read), suggest_path(tool, target)


def _guarded_read(book: RuleBook) -> Callable[[PathTarget], bool]:
    def guarded(target: PathTarget) -> bool:
        check = Check("read", target.shown, read_only=True, target=target)
        rules = book.rules.deny + (() if book.ignore_ask else book.rules.ask)
        return any(_matches(r.rule, check, as_written=True) for r in rules)

    return guarded
