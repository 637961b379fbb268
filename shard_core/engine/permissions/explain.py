"""explain: the gate's whole reasoning for one tool call, as data — pure, no side effects.

Layers, first match wins, except that a deny anywhere wins:

    deny rules → the mode's deny vote → ask rules / the mode's ask vote → grants → allow rules
    → the mode's allow vote → default policy → ask

The default policy allows read-only tools inside the workspace (MCP tools excepted) and the
read-only shell commands of readonly.py; a URL tool (`DomainAccess`: web_fetch) is asked unless
a `WebFetch(domain:…)` rule or grant allows its host. Paths outside the workspace and writes to
a protected place (`.git/`, `.shard/`, `.agents/`, `.mcp.json`, `SHARD.md`, `AGENTS.md`) ask
unless a rule names them (checks.py); so does a call a tool says reaches outside the workspace
without a path (`ReachingTool.reach`: recall into another project's sessions). A Bash call is
judged part by part (shell_policy.py). An ask also records whether the call would be allowed
with the ask layer ignored — what the headless policy `allow_if_rule_matches` needs. `RuleGate`
acts on the result; `shard rules check` prints it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from shard_core.contracts import Mode, PermissionQuery, ReachingTool, Tool, ToolContext
from shard_core.contracts.access import CommandAccess, DomainAccess, PathAccess
from shard_core.engine.access import call_access
from shard_core.engine.permissions.checks import (
    AskKind,
    Check,
    DecidedBy,
    DecisionKind,
    RuleBook,
    Verdict,
    evaluate_check,
)
from shard_core.engine.permissions.domains import url_host
from shard_core.engine.permissions.paths import resolve_target
from shard_core.engine.permissions.rules import Rule
from shard_core.engine.permissions.shell_policy import BashPart, judge_bash
from shard_core.engine.permissions.sources import RuleSet, SourcedRule
from shard_core.engine.permissions.suggest import (
    single,
    suggest_domain,
    suggest_path,
    suggest_tool,
)
from shard_core.types import Ask, Decision, Deny, JsonObject, ToolResult

__all__ = ["Explanation", "Part", "canonical_tool", "explain"]


@dataclass(frozen=True)
class Part:
    """One simple command of a Bash call and what the gate thinks of it."""

    text: str
    argv: tuple[str, ...]
    decision: DecisionKind
    rule: str | None
    reason: str

    def to_json(self) -> JsonObject:
        return {
            "text": self.text,
            "argv": list(self.argv),
            "decision": self.decision,
            "rule": self.rule,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Explanation:
    """The decision, the rule behind it and why; `decider` is the part that decided (Bash)."""

    decision: DecisionKind
    reason: str
    rule: str | None = None
    by: DecidedBy | None = None
    parts: tuple[Part, ...] = ()
    decider: Part | None = None
    suggested_rule: str | None = None
    ask: AskKind | None = None
    would_allow: bool = field(default=False, repr=False)
    would_allow_rule: str | None = field(default=None, repr=False)
    outside: Path | None = None
    """A file tool's target outside the workspace (its real path): where the tool may reach
    for this call when an absolute-path rule, a grant or a person allows it (gate.py)."""

    def to_json(self) -> JsonObject:
        return {
            "decision": self.decision,
            "rule": self.rule,
            "reason": self.reason,
            "parts": [p.to_json() for p in self.parts],
        }


def canonical_tool(name: str) -> str:
    """Registry names are matched case-insensitively, MCP names exactly."""
    return name if name.startswith("mcp__") else name.lower()


def explain(
    query: PermissionQuery,
    rules: RuleSet,
    *,
    grants: Iterable[Rule | SourcedRule] = (),
    mode: Mode | None = None,
    tool: Tool | None = None,
) -> Explanation:
    """Why `query` is allowed, asked or denied. `tool` is what the mode votes on. A grant given
    as a bare Rule is labelled "allow-always grant"; a SourcedRule keeps its label."""
    sourced = tuple(
        g if isinstance(g, SourcedRule) else SourcedRule(g, "allow-always grant") for g in grants
    )
    book = RuleBook(rules, sourced)
    result = _layered(query, book, mode, tool)
    if result.decision != "ask":
        return result
    unasked = _layered(query, book.without_ask(), mode, tool)
    if unasked.decision != "allow":
        return result
    return replace(result, would_allow=True, would_allow_rule=unasked.rule)


def _layered(
    query: PermissionQuery, book: RuleBook, mode: Mode | None, tool: Tool | None
) -> Explanation:
    name = canonical_tool(query.tool)
    access = call_access(name, tool)
    if isinstance(access, CommandAccess):
        base = _explain_bash(name, query.input.get(access.arg), query, book)
    elif isinstance(access, DomainAccess):
        base = _explain_domain(name, query, book, access)
    else:
        base = _explain_tool(name, query, book, tool, access)
    if mode is None or base.decision == "deny":
        return base
    vote = mode.vote(tool or _QueriedTool(query.tool, query.read_only), dict(query.input))
    if vote is None or (book.ignore_ask and isinstance(vote, Ask)):
        return base
    return _apply_vote(base, vote, mode.name)


def _apply_vote(base: Explanation, vote: Decision, mode: str) -> Explanation:
    if isinstance(vote, Deny):
        reason = f"{mode} mode: {vote.reason}"
        return Explanation("deny", reason, vote.rule, "mode", base.parts)
    if isinstance(vote, Ask):
        if base.ask == "forced":
            return base
        reason = f"{mode} mode asks: {vote.prompt}"
        return Explanation(
            "ask", reason, None, None, base.parts, ask="forced", outside=base.outside
        )
    if base.decision == "ask" and base.ask == "unruled":
        return Explanation("allow", f"allowed by {mode} mode", vote.rule, "mode", base.parts)
    return base


def _explain_tool(
    name: str,
    query: PermissionQuery,
    book: RuleBook,
    tool: Tool | None,
    access: PathAccess | None,
) -> Explanation:
    read_only = query.read_only
    if access is None:
        reaches = _reach(tool, query)
        check = Check(name, name, read_only=read_only, reaches=reaches)
        default = read_only and not name.startswith("mcp__")
        suggestion = None if reaches else suggest_tool(name)
        return _from_verdict(evaluate_check(check, book, default_allow=default), suggestion)
    raw = query.input.get(access.arg, access.default)
    try:
        target = resolve_target(raw, query.cwd)
    except ValueError as exc:
        return Explanation("ask", f"{name}: {exc}", ask="unclear")
    label = f"{name} {target.raw}"
    check = Check(name, label, read_only=read_only, target=target, access=access)
    verdict = evaluate_check(check, book, default_allow=read_only)
    found = _from_verdict(verdict, suggest_path(name, target, access))
    return found if target.inside else replace(found, outside=target.resolved)


def _explain_domain(
    name: str, query: PermissionQuery, book: RuleBook, access: DomainAccess
) -> Explanation:
    """A URL tool: judged by the URL's host, asked when no rule allows it (read-only or not)."""
    host = url_host(query.input.get(access.arg))
    if host is None:
        return Explanation("ask", f"{name}: `{access.arg}` names no host", ask="unclear")
    check = Check(name, f"{name} {host}", read_only=query.read_only, host=host, access=access)
    verdict = evaluate_check(check, book, default_allow=False)
    return _from_verdict(verdict, suggest_domain(name, host, access))


def _reach(tool: Tool | None, query: PermissionQuery) -> tuple[str, ...]:
    """What the tool says the call reads outside the workspace (ReachingTool); may raise."""
    if not isinstance(tool, ReachingTool):
        return ()
    return tuple(str(place) for place in tool.reach(query.input, query.tool_context()))


def _from_verdict(verdict: Verdict, suggestion: str | None) -> Explanation:
    asks = verdict.decision == "ask" and verdict.ask not in ("forced", "unclear")
    return Explanation(
        verdict.decision,
        verdict.reason,
        verdict.rule_text,
        verdict.by,
        ask=verdict.ask,
        suggested_rule=suggestion if asks else None,
    )


def _explain_bash(
    name: str, command: object, query: PermissionQuery, book: RuleBook
) -> Explanation:
    judged = judge_bash(command, query.cwd, book, tool=name)
    parts = tuple(_part(p) for p in judged.parts)
    pairs = list(zip(judged.parts, parts, strict=True))
    denied = next(((b, p) for b, p in pairs if b.verdict.decision == "deny"), None)
    if denied is not None:
        verdict = denied[0].verdict
        return Explanation("deny", verdict.reason, verdict.rule_text, verdict.by, parts, denied[1])
    if not judged.ok:
        reason = "the command cannot be fully analysed: " + "; ".join(judged.problems)
        return Explanation("ask", reason, parts=parts, ask="unclear")
    asking = [(b, p) for b, p in pairs if b.verdict.decision == "ask"]
    if asking:
        worst, part = max(asking, key=lambda pair: pair[0].verdict.weight)
        kind = worst.verdict.ask
        wanted = [s for b, _ in asking for s in b.wanted_rules]
        suggestion = single(wanted) if kind in ("unruled", "guarded") else None
        return Explanation(
            "ask",
            worst.verdict.reason,
            parts=parts,
            decider=part,
            ask=kind,
            suggested_rule=suggestion,
        )
    return _all_allowed(judged.parts, parts)


def _all_allowed(judged: tuple[BashPart, ...], parts: tuple[Part, ...]) -> Explanation:
    pairs = zip(judged, parts, strict=True)
    rules = dict.fromkeys(r for b in judged for v in b.verdicts if (r := v.rule_text))
    sources = {v.by for b in judged for v in b.verdicts}
    by: DecidedBy = "rule" if "rule" in sources else "grant" if "grant" in sources else "mode"
    summary = "; ".join(f"`{p.text}` {_sourced(b) or 'as a read-only command'}" for b, p in pairs)
    return Explanation(
        "allow", f"every command is allowed: {summary}", ", ".join(rules) or None, by, parts
    )


def _sourced(judged: BashPart) -> str:
    """The rules that allowed one command, each with where it came from."""
    named = (f"{v.rule.text} ({v.rule.source})" for v in judged.verdicts if v.rule is not None)
    found = ", ".join(dict.fromkeys(named))
    return f"by {found}" if found else ""


def _part(judged: BashPart) -> Part:
    verdict = judged.verdict
    return Part(judged.text, judged.argv, verdict.decision, judged.rule_text, verdict.reason)


@dataclass
class _QueriedTool:
    """What a mode votes on when the caller has no Tool object: the name and read-only flag."""

    name: str
    read_only: bool
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict[str, Any])

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return ToolResult.error("a permission stand-in cannot run")
