"""Bash calls judged part by part: every simple command and every file it writes is one check.

A call is allowed only if every part is; any denied part denies it (and names that part); a
command the analyser cannot vouch for (`ok` False, or an exception) asks — never allows, though
its best-effort parts can still deny. A part's command is checked against Bash rules, its writes
(`> f`, `>> f`, `tee f`) against Edit/Write rules and the workspace edge, as the `write` tool.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shard_core.engine.permissions.checks import Check, RuleBook, Verdict, evaluate_check
from shard_core.engine.permissions.checks import rule_matches as _matches
from shard_core.engine.permissions.paths import PathTarget, resolve_target
from shard_core.engine.permissions.readonly import is_read_only_command
from shard_core.engine.permissions.shell import ShellAnalysis, SimpleCommand, analyze
from shard_core.engine.permissions.suggest import suggest_command, suggest_path

__all__ = ["BashJudgement", "BashPart", "judge_bash"]


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


def judge_bash(command: object, cwd: Path, book: RuleBook) -> BashJudgement:
    """Analyse `command` and judge each part; unanalysable input gives `ok=False`, no parts."""
    if not isinstance(command, str) or not command.strip():
        return BashJudgement((), False, ("no command given",))
    try:
        analysis = analyze(command)
    except Exception as exc:  # the analyser's failure is an ask, whatever it was
        return BashJudgement((), False, (f"could not analyse the command: {exc!r}",))
    parts = tuple(_judge_part(c, analysis, cwd, book) for c in analysis.commands)
    problems = analysis.problems or (() if parts else ("no command found",))
    return BashJudgement(parts, analysis.ok and bool(parts), problems)


def _judge_part(
    command: SimpleCommand, analysis: ShellAnalysis, cwd: Path, book: RuleBook
) -> BashPart:
    verdicts: list[Verdict] = []
    suggestions: list[str | None] = []
    if command.argv:
        readonly = analysis.ok and not analysis.writes
        default = readonly and is_read_only_command(command.argv, cwd, _guarded_read(book))
        check = Check("bash", f"`{command.text}`", argv=command.argv)
        verdicts.append(evaluate_check(check, book, default_allow=default))
        suggestions.append(suggest_command(command.argv, book.rules.deny))
    for raw in command.writes:
        try:
            target = resolve_target(raw, cwd)
        except ValueError as exc:
            reason = f"cannot judge the write to {raw!r}: {exc}"
            verdicts.append(Verdict("ask", reason, ask="unclear"))
            suggestions.append(None)
            continue
        check = Check("write", f"writing {raw}", target=target)
        verdicts.append(evaluate_check(check, book, default_allow=False))
        suggestions.append(suggest_path("write", target))
    return BashPart(command.text, command.argv, tuple(verdicts), tuple(suggestions))


def _guarded_read(book: RuleBook) -> Callable[[PathTarget], bool]:
    def guarded(target: PathTarget) -> bool:
        check = Check("read", target.shown, read_only=True, target=target)
        rules = book.rules.deny + (() if book.ignore_ask else book.rules.ask)
        return any(_matches(r.rule, check, as_written=True) for r in rules)

    return guarded
