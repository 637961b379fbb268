"""The layered decision for one check — a tool's path, one shell command, or one shell write.

Order, first match wins: deny rules → ask rules → grants → allow rules → the default policy
(read-only and inside the workspace: allow) → ask. A path outside the workspace, or a write under
a protected place (`shard_core.types.protected`: `.git/`, `.shard/`, `.agents/`, `.mcp.json`,
`SHARD.md`, `AGENTS.md`), is "guarded": an allow rule or grant lifts the guard only when it names
the place (an absolute/`~` pattern outside, a pattern with that directory or file name for those).
A broad `Write(**)` never does, and the headless policy denies a guarded write. A tool's declared
reach outside the workspace (`Check.reaches`) is guarded too, and no rule names it: only a
person's answer allows it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from shard_core.contracts.access import ToolAccess
from shard_core.engine.permissions.command_forms import rule_forms
from shard_core.engine.permissions.paths import PROTECTED_FILES, PathTarget
from shard_core.engine.permissions.rules import Rule
from shard_core.engine.permissions.sources import RuleSet, SourcedRule

__all__ = [
    "AskKind",
    "Check",
    "DecidedBy",
    "DecisionKind",
    "RuleBook",
    "Verdict",
    "evaluate_check",
    "rule_matches",
]

DecisionKind = Literal["allow", "ask", "deny"]
DecidedBy = Literal["rule", "grant", "mode"]
# Why a check asks: no rule allows it | a guard (outside, protected) | an ask rule | unanalysable.
AskKind = Literal["unruled", "guarded", "forced", "unclear"]
_ASK_WEIGHT: dict[AskKind, int] = {"unruled": 0, "guarded": 1, "unclear": 2, "forced": 3}


@dataclass(frozen=True)
class RuleBook:
    """What a check is judged against: the rules, the agent's grants, the ask-layer switch."""

    rules: RuleSet
    grants: tuple[SourcedRule, ...] = ()
    ignore_ask: bool = False

    def without_ask(self) -> RuleBook:
        return replace(self, ignore_ask=True)


@dataclass(frozen=True)
class Check:
    """One thing to judge. `argv` for a shell command, `target` for a path."""

    tool: str
    label: str
    read_only: bool = False
    target: PathTarget | None = None
    argv: tuple[str, ...] | None = None
    host: str | None = None
    """The host of the URL a DomainAccess tool is given."""
    reaches: tuple[str, ...] = ()
    """Places outside the workspace the call reads without a path (a ReachingTool's reach)."""
    access: ToolAccess | None = None
    """The shape the tool declared (None: the one declared for its name): which rules of
    another name (`Read`, `Edit`, `Bash`) also cover it."""

    @property
    def writes(self) -> bool:
        return not self.read_only


@dataclass(frozen=True)
class Verdict:
    decision: DecisionKind
    reason: str
    rule: SourcedRule | None = None
    by: DecidedBy | None = None
    ask: AskKind | None = None

    @property
    def rule_text(self) -> str | None:
        return self.rule.text if self.rule else None

    @property
    def weight(self) -> tuple[int, int]:
        """Orders verdicts: deny over ask over allow; among asks, the stricter reason."""
        rank = {"allow": 0, "ask": 1, "deny": 2}[self.decision]
        return (rank, _ASK_WEIGHT[self.ask] if self.ask else 0)


def evaluate_check(check: Check, book: RuleBook, *, default_allow: bool) -> Verdict:
    """Judge one check; `default_allow` is the default policy's answer when no rule decides."""
    denied = _first(book.rules.deny, check, as_written=True)
    if denied is not None:
        return Verdict("deny", f"{check.label} is denied by {_named(denied)}", denied, "rule")
    if not book.ignore_ask:
        forced = _first(book.rules.ask, check, as_written=True)
        if forced is not None:
            reason = f"{check.label} always asks: {_named(forced)}"
            return Verdict("ask", reason, forced, "rule", ask="forced")
    guard = _guard(check)
    layers: tuple[tuple[tuple[SourcedRule, ...], DecidedBy], ...] = (
        (book.grants, "grant"),
        (book.rules.allow, "rule"),
    )
    for rules, by in layers:
        allowed = next((r for r in rules if _lifts(r.rule, check, guard)), None)
        if allowed is not None:
            reason = f"{check.label} is allowed by {_named(allowed)}"
            return Verdict("allow", reason, allowed, by)
    if guard is not None:
        return Verdict("ask", f"{check.label} {guard}", ask="guarded")
    if default_allow:
        where = " inside the workspace" if check.target or check.argv else ""
        return Verdict("allow", f"{check.label} is read-only{where}", by="mode")
    return Verdict("ask", f"no rule allows {check.label}", ask="unruled")


def rule_matches(rule: Rule, check: Check, *, as_written: bool = False) -> bool:
    """Whether `rule` is about this check (tool, command words, path).

    `as_written` (deny and ask rules) also tries the path as written and every form the command
    could mean (command_forms.py); allow rules see the real path and the narrow forms.
    """
    if not rule.covers_tool(check.tool, check.access):
        return False
    if check.argv is not None:
        forms = rule_forms(check.argv, broad=as_written)
        return any(rule.matches_argv(form) for form in forms)
    if rule.domain is not None:
        return check.host is not None and rule.domain.matches(check.host)
    if rule.path is None:
        return True
    target = check.target
    if target is None:
        return False
    pattern = rule.path
    return any(
        pattern.matches(rel, path, target.is_dir)
        for rel, path in target.forms(as_written=as_written)
    )


def _first(rules: tuple[SourcedRule, ...], check: Check, *, as_written: bool) -> SourcedRule | None:
    return next((r for r in rules if rule_matches(r.rule, check, as_written=as_written)), None)


def _guard(check: Check) -> str | None:
    if check.reaches:
        return f"reaches outside the workspace: {'; '.join(check.reaches)}"
    target = check.target
    if target is None:
        return None
    if not target.inside:
        return f"is outside the workspace ({target.resolved})"
    protected = target.protected_dir()
    if not check.writes or not protected:
        return None
    if protected in PROTECTED_FILES:
        return f"writes {protected}, which is protected (a later trusted run reads it)"
    return f"writes inside {protected}/, which is protected"


def _lifts(rule: Rule, check: Check, guard: str | None) -> bool:
    """Whether an allow rule allows the check, guards included."""
    if not rule_matches(rule, check):
        return False
    target = check.target
    if guard is None:
        return True
    if target is None:
        return False  # a reach without a path: no rule names the place, so only a person lifts it
    if rule.path is None:
        return False  # a bare rule never reaches outside the workspace or into .git/.shard
    if not target.inside:
        return rule.path.absolute
    return target.protected_dir() in rule.path.segments


def _named(rule: SourcedRule) -> str:
    return f"{rule.text} ({rule.source})"
