"""`shard rules check`: which permission rule decides a tool call, and why.

    shard rules check bash '{"command": "git add x && git push"}' --allow 'Bash(git add:*)'
    shard rules check read '{"path": "/etc/passwd"}' --json

Rules come from the same places an agent's do (config.json, SHARD_HOME/rules, the project's
`.shard/rules` — allow rules there only with --trust-project — and the flags); --agent adds that
agent's grants, --mode the mode's vote. The exit status is the decision: 0 allow, 10 ask,
11 deny; 2 for bad input or rules (docs/EXIT-CODES.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from shard_core.contracts import PathAccess, PermissionQuery
from shard_core.engine.access import access_for
from shard_core.engine.config import load_config
from shard_core.engine.modes import bundled_modes
from shard_core.engine.permissions import Explanation, GrantStore, explain, load_rules
from shard_core.types.errors import ConfigError
from shard_kernel.exit_codes import ExitCode

_EXAMPLES = """examples:
  shard rules check bash '{"command": "git add x && git push"}' --allow 'Bash(git add:*)'
  shard rules check edit '{"path": ".git/config"}' --json

exit status: 0 allow, 10 ask, 11 deny, 2 bad input or rules
"""
DECISION_STATUS = {"allow": ExitCode.OK, "ask": ExitCode.ASK, "deny": ExitCode.DENY}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rules", help="inspect permission rules", description="Inspect permission rules."
    )
    actions = parser.add_subparsers(dest="rules_action", metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="explain which rule decides a tool call",
        description="Explain which permission rule decides a tool call, and why.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("tool", help="tool name: bash, read, write, edit, grep, find, ls, mcp__…")
    check.add_argument("input", nargs="?", default="{}", help="the tool input as a JSON object")
    check.add_argument("--cwd", type=Path, default=None, help="the workspace (default: here)")
    check.add_argument("--allow", action="append", default=[], metavar="RULE")
    check.add_argument("--deny", action="append", default=[], metavar="RULE")
    check.add_argument("--agent", default=None, help="include this agent's grants")
    check.add_argument("--mode", choices=[m.name for m in bundled_modes()], default=None)
    check.add_argument("--trust-project", action="store_true", help="apply project allow rules")
    check.add_argument("--read-only", action="store_true", help="treat the tool as read-only")
    check.add_argument("--json", action="store_true", help="print the explanation as JSON")
    check.set_defaults(handler=run_check)
    parser.set_defaults(handler=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return ExitCode.BAD_INPUT


def run_check(args: argparse.Namespace) -> int:
    try:
        explanation, notes = _explain(args)
    except ConfigError as exc:
        print(f"shard rules check: error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(explanation.to_json(), indent=2))
    else:
        print(_human(explanation))
    return DECISION_STATUS[explanation.decision]


def _explain(args: argparse.Namespace) -> tuple[Explanation, tuple[str, ...]]:
    from shard_kernel.registrations import declare_tool_shapes

    declare_tool_shapes()  # every tool's rules parse here as in an agent that has it
    payload = _input(args.input)
    cwd = Path(os.path.realpath(args.cwd or Path.cwd()))
    if not cwd.is_dir():
        raise ConfigError(f"--cwd {cwd} is not a directory")
    config = load_config()
    rules = load_rules(
        cwd,
        config.permissions,
        trust_project=args.trust_project,
        allow=args.allow,
        deny=args.deny,
    )
    grants = GrantStore(args.agent).rules() if args.agent else []
    mode = next((m for m in bundled_modes() if m.name == args.mode), None)
    tool = args.tool if args.tool.startswith("mcp__") else args.tool.lower()
    access = access_for(tool)
    query = PermissionQuery(
        tool=tool,
        input=payload,
        read_only=args.read_only or (isinstance(access, PathAccess) and not access.writes),
        cwd=cwd,
        call_id="rules-check",
        turn_id="rules-check",
        agent_id=args.agent or "rules-check",
    )
    return explain(query, rules, grants=grants, mode=mode), rules.diagnostics


def _input(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"the tool input is not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise ConfigError('the tool input must be a JSON object, e.g. \'{"command": "ls"}\'')
    return {str(k): v for k, v in value.items()}


def _human(explanation: Explanation) -> str:
    lines = [
        f"decision: {explanation.decision}",
        f"rule:     {explanation.rule or '-'}",
        f"reason:   {explanation.reason}",
    ]
    if explanation.parts:
        width = max(len(p.text) for p in explanation.parts)
        lines.append("parts:")
        for part in explanation.parts:
            mark = "  <- decided" if part is explanation.decider else ""
            text = part.text.replace("\n", " ")
            lines.append(f"  {part.decision:<5}  {text:<{width}}  {part.rule or '-'}{mark}")
    if explanation.suggested_rule:
        lines.append(f"suggest:  {explanation.suggested_rule}  (what 'allow always' would save)")
    return "\n".join(lines)
