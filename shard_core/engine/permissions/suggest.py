"""The rule "allow always" would save for an ask: the narrowest sensible one, never a broad one.

- A shell command: `Bash(git push:*)` (first two words) for tools with subcommands (git, npm,
  cargo, …), else `Bash(<cmd>:*)`; the exact command for interpreters, shells and `sudo`, whose
  arguments are code. A candidate that would also cover something a deny rule denies is skipped
  for a narrower one (down to the exact command).
- A file: the rule the path tool declares (`rule`: `write` names `Edit`), else its own name —
  `Edit(<path relative to the cwd>)`, `Read(<path>)`, `Grep(<dir>)` — absolute outside the
  workspace; glob characters escaped.
- A URL: `WebFetch(domain:<host>)` (or the rule the tool declares), that host only.
- Anything else: the bare tool name as rules write it (`PythonExec`, `mcp__server__tool`).

One call gets one suggestion; when different parts of a shell call would need different rules,
there is none (a grant must cover the whole call).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from shard_core.contracts.access import DomainAccess, PathAccess
from shard_core.engine.access import access_for
from shard_core.engine.permissions.checks import Check, rule_matches
from shard_core.engine.permissions.paths import PathTarget
from shard_core.engine.permissions.rules import Rule, parse_rule, rule_name
from shard_core.engine.permissions.shell_words import is_interpreter
from shard_core.engine.permissions.sources import SourcedRule
from shard_core.types.errors import ConfigError

__all__ = [
    "SUBCOMMAND_TOOLS",
    "single",
    "suggest_command",
    "suggest_domain",
    "suggest_path",
    "suggest_tool",
]

SUBCOMMAND_TOOLS = frozenset(
    {
        "git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "uv", "pip", "pip3", "poetry",
        "docker", "podman", "kubectl", "helm", "gh", "dotnet", "mvn", "gradle", "terraform",
        "brew", "apt", "apt-get", "conda", "rustup", "make", "just", "hatch", "pdm", "deno",
    }
)  # fmt: skip
_CODE_RUNNERS = frozenset({"sudo", "doas", "xargs", "env", "nohup", "time", "timeout", "nice"})
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")


def suggest_command(argv: tuple[str, ...], deny: Iterable[SourcedRule]) -> str | None:
    """The narrowest sensible Bash rule for `argv` that overlaps no Bash deny rule."""
    if not argv or any("*" in word for word in argv):
        return None
    name = argv[0]
    if is_interpreter(name) and len(argv) == 1:
        return None  # it runs whatever arrives on stdin
    candidates: list[str] = []
    if not (is_interpreter(name) or name in _CODE_RUNNERS or "$" in name or "`" in name):
        if name in SUBCOMMAND_TOOLS and len(argv) >= 2 and not argv[1].startswith("-"):
            candidates.append(f"Bash({shlex.join(argv[:2])}:*)")
        candidates.append(f"Bash({shlex.join(argv[:1])}:*)")
    candidates.append(f"Bash({shlex.join(argv)})")
    denies = [r.rule for r in deny if r.rule.tool == "bash"]
    for text in candidates:
        rule = _parsed(text)
        if rule is None or not rule.matches_argv(argv):
            continue
        if not any(rule.overlaps(d) for d in denies):
            return text
    return None


def suggest_path(tool: str, target: PathTarget, access: PathAccess | None = None) -> str | None:
    """`<Rule>(path)` for a path tool (`access`: its shape, None: the one declared for its
    name); None if it would not match the call again."""
    shape = access or access_for(tool)
    if not isinstance(shape, PathAccess):
        return None
    rule_tool = shape.rule or rule_name(tool)
    rel = target.rel
    shown = "." if rel == "" else _escape(str(target.resolved) if rel is None else rel)
    text = f"{rule_tool}({shown})"
    rule = _parsed(text)
    check = Check(tool, text, read_only=not shape.writes, target=target, access=shape)
    return text if rule is not None and rule_matches(rule, check) else None


def suggest_domain(tool: str, host: str, access: DomainAccess) -> str | None:
    """`<Rule>(domain:host)` for a URL tool; None if it would not match the call again."""
    text = f"{access.rule or rule_name(tool)}(domain:{host})"
    rule = _parsed(text)
    check = Check(tool, text, host=host, access=access)
    return text if rule is not None and rule_matches(rule, check) else None


def suggest_tool(tool: str) -> str | None:
    """A bare rule for a tool without a specifier form."""
    text = rule_name(tool)
    return text if _parsed(text) is not None else None


def single(suggestions: Iterable[str | None]) -> str | None:
    """The one rule every part agrees on, or None."""
    distinct = set(suggestions)
    return distinct.pop() if len(distinct) == 1 else None


def _escape(path: str) -> str:
    escaped = _GLOB_SPECIAL.sub(r"\\\1", path)
    return "\\" + escaped if escaped[:1] in ("#", "!") else escaped


def _parsed(text: str) -> Rule | None:
    try:
        return parse_rule(text)
    except ConfigError:
        return None
