"""Rule: one permission rule string (`Bash(git add:*)`, `Edit(**/*.py)`, `mcp__srv__*`) parsed.

The forms, and what each one matches:

- `Bash` — any command. `Bash(git status)` — exactly those argv words. `Bash(npm run test:*)`
  (or `Bash(npm run test *)`) — commands whose argv *starts with* those words. Rules see argv
  after quote removal and wrapper unwrapping (shell.py), never the raw string, so
  `Bash(npm run test:*)` does not match `npm run test:unit`, and `Bash(rm:*)` matches `\\rm`,
  `/bin/rm`, `env rm`, `xargs rm` alike.
- `Read(src/**)`, `Edit(**/*.py)`, `Write(docs/**)`, `Grep(…)`, `Find(…)`, `Ls(…)` — gitignore
  patterns over the real path: relative to the cwd (they never match outside it), absolute
  (`/etc/hosts`, `//etc/hosts`), or under the home directory (`~/notes/**`).
- A bare `Read` matches any input. As an allow rule it still stops at the workspace edge: a path
  outside needs a rule that names it with an absolute or `~` pattern.
- `WebFetch(domain:docs.python.org)` — that host exactly; `WebFetch(domain:*.python.org)` —
  its subdomains (domains.py). A bare `WebFetch` matches any URL.
- `mcp__server__tool`, `mcp__server__*` and `mcp__server` (every tool of that server).

Tool names are case-insensitive, and CamelCase names the snake_case tool (`PythonExec` is
`python_exec`). Which rules take a specifier, and what it means, is what the tool declares as
its `access` (contracts/access.py, looked up in engine/access.py): a path tool's rules take path
patterns, a command tool's command words, a URL tool's `domain:` hosts. As in Claude Code,
`Read` rules also cover every reading path tool (`grep`, `find`, `ls`, `notebook_read`, a third
party's), `Edit` rules every writing one (`write`, `notebook_edit`), `Bash` rules every command
tool, and `WebFetch` rules every tool that declares `DomainAccess`.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from shard_core.contracts.access import CommandAccess, DomainAccess, PathAccess, ToolAccess
from shard_core.engine.access import access_for, declared
from shard_core.engine.permissions.domains import DomainPattern, parse_domain_pattern
from shard_core.engine.permissions.shell_words import command_name
from shard_core.types.errors import ConfigError

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["PathPattern", "Rule", "parse_rule", "rule_name"]


def _reads(access: ToolAccess | None) -> bool:
    return isinstance(access, PathAccess) and not access.writes


def _writes(access: ToolAccess | None) -> bool:
    return isinstance(access, PathAccess) and access.writes


def _runs(access: ToolAccess | None) -> bool:
    return isinstance(access, CommandAccess)


def _fetches(access: ToolAccess | None) -> bool:
    return isinstance(access, DomainAccess)


_FAMILIES = {"read": _reads, "edit": _writes, "bash": _runs, "web_fetch": _fetches}
"""The rules that also cover other tools, by the shape those declare (Claude Code semantics)."""
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_RULE = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_\-]*\*?)(?:\((?P<spec>.*)\))?", re.DOTALL)
_MCP = re.compile(r"mcp__(?P<server>[A-Za-z0-9_\-]+?)(?:__(?P<tool>[A-Za-z0-9_\-]+|\*))?")
_GLOB_CHARS = frozenset("*?[")
# Patterns that also match the cwd itself (a directory tool run on ".").
_WHOLE_TREE = frozenset({".", "*", "**", "**/*"})


@dataclass(frozen=True)
class PathPattern:
    """A gitignore pattern, anchored at the cwd (relative) or at `/` (absolute)."""

    text: str
    absolute: bool
    spec: GitIgnoreSpec

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(part for part in self.text.split("/") if part)

    def matches(self, rel: str | None, absolute: Path, is_dir: bool) -> bool:
        """Whether the path matches: `rel` (None when outside the cwd) or the absolute path."""
        subject = absolute.as_posix().lstrip("/") if self.absolute else rel
        if subject is None:
            return False
        if subject in ("", "."):
            return self.text in _WHOLE_TREE
        if self.text == ".":
            return False
        return bool(
            self.spec.match_file(subject) or (is_dir and self.spec.match_file(subject + "/"))
        )


@dataclass(frozen=True)
class Rule:
    """A parsed rule. `text` is the rule as written (stripped)."""

    text: str
    tool: str
    words: tuple[str, ...] | None = None
    prefix: bool = False
    path: PathPattern | None = None
    domain: DomainPattern | None = None

    @property
    def bare(self) -> bool:
        return self.words is None and self.path is None and self.domain is None

    def covers_tool(self, tool: str, access: ToolAccess | None = None) -> bool:
        """Whether the rule is about `tool`; `access` is the shape it is judged by (None: the
        one declared for its name)."""
        if self.tool.startswith("mcp__"):
            return _mcp_covers(self.tool, tool)
        name = tool.lower()
        if name == self.tool:
            return True
        family = _FAMILIES.get(self.tool)
        return family is not None and family(access or access_for(name))

    def matches_argv(self, argv: tuple[str, ...]) -> bool:
        if self.words is None:
            return True
        if self.prefix:
            return argv[: len(self.words)] == self.words
        return argv == self.words

    def overlaps(self, other: Rule) -> bool:
        """Whether some command matches both Bash rules (keeps suggestions clear of denies)."""
        if self.words is None or other.words is None:
            return True
        short, long = (self, other) if len(self.words) <= len(other.words) else (other, self)
        assert short.words is not None
        assert long.words is not None
        if short.prefix:
            return long.words[: len(short.words)] == short.words
        return long.matches_argv(short.words)

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str) -> Rule:
    """Parse one rule string; a ConfigError names the rule and what is wrong with it."""
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ConfigError(f"invalid permission rule {text!r}: a rule is a string")
    stripped = text.strip()
    match = _RULE.fullmatch(stripped)
    if match is None:
        raise ConfigError(f"invalid permission rule {text!r}: {_shape_problem(stripped)}")
    name, spec = match["name"], match["spec"]
    try:
        return _build(stripped, name, spec)
    except ValueError as exc:
        raise ConfigError(f"invalid permission rule {text!r}: {exc}") from None


def _shape_problem(text: str) -> str:
    if not text:
        return "empty rule"
    if "(" in text and not text.endswith(")"):
        return "missing ')' at the end"
    return "expected Tool, Tool(specifier) or mcp__server__tool"


def _build(text: str, name: str, spec: str | None) -> Rule:
    if name.startswith("mcp__"):
        mcp = _MCP.fullmatch(name)
        if mcp is None:
            raise ValueError("expected mcp__server, mcp__server__tool or mcp__server__*")
        if spec is not None:
            raise ValueError("MCP rules take no specifier")
        return Rule(text, name)
    if name.endswith("*"):
        raise ValueError("'*' is only allowed in mcp__server__* rules")
    # `PythonExec` names the tool `python_exec`: rules are written in CamelCase, tools in snake.
    tool = _WORD_BOUNDARY.sub("_", name).lower()
    access = access_for(tool)
    if spec is None or (spec.strip() == "*" and isinstance(access, CommandAccess)):
        return Rule(text, tool)
    if isinstance(access, CommandAccess):
        words, prefix = _command_words(spec)
        return Rule(text, tool, words=words, prefix=prefix)
    if isinstance(access, PathAccess):
        return Rule(text, tool, path=parse_path_pattern(spec))
    if isinstance(access, DomainAccess):
        return Rule(text, tool, domain=parse_domain_pattern(spec))
    named = [rule_name(t) for t in declared()]
    only = ", ".join(named[:-1]) + f" and {named[-1]}" if len(named) > 1 else "".join(named)
    raise ValueError(f"{name}(…) takes no specifier; only {only} do")


def rule_name(tool: str) -> str:
    """How rules name a tool: `python_exec` → `PythonExec` (MCP names as they are); the name
    itself when the CamelCase form would not name it again."""
    if tool.startswith("mcp__"):
        return tool
    camel = "".join(part[:1].upper() + part[1:] for part in tool.split("_"))
    return camel if _WORD_BOUNDARY.sub("_", camel).lower() == tool.lower() else tool


def _command_words(spec: str) -> tuple[tuple[str, ...], bool]:
    body, prefix = spec.strip(), False
    if body.endswith(":*"):
        body, prefix = body[:-2], True
    try:
        words = shlex.split(body)
    except ValueError as exc:
        raise ValueError(f"cannot split the command words: {exc}") from None
    if words and words[-1] == "*" and not prefix:
        words, prefix = words[:-1], True
    if not words:
        raise ValueError("no command words before ':*'" if prefix else "empty command")
    if any("*" in word for word in words):
        raise ValueError("Bash rules match argv words exactly; use ':*' at the end for a prefix")
    return (command_name(words[0]), *words[1:]), prefix


def parse_path_pattern(spec: str) -> PathPattern:
    """A path specifier as a gitignore pattern; `~` is expanded, absolute prefixes resolved."""
    text = spec.strip()
    if not text:
        raise ValueError("empty path pattern")
    if "\x00" in text:
        raise ValueError("path pattern contains a NUL byte")
    if text.startswith("!"):
        raise ValueError("negated patterns ('!') are not supported; write a deny rule")
    if text == "~" or text.startswith("~/"):
        text = os.path.expanduser("~") + text[1:]
    absolute = text.startswith("/")
    if absolute:
        text = _resolve_literal_prefix("/" + text.lstrip("/"))
    else:
        text = text.removeprefix("./") or "."
        if ".." in text.split("/"):
            raise ValueError("'..' in a relative pattern; write an absolute path instead")
    from pathspec import GitIgnoreSpec  # with the first path rule, not with every import

    try:
        spec_ = GitIgnoreSpec.from_lines([text])
    except Exception as exc:
        raise ValueError(f"bad path pattern {text!r}: {exc}") from None
    return PathPattern(text, absolute, spec_)


def _resolve_literal_prefix(pattern: str) -> str:
    """Resolve symlinks in an absolute pattern's glob-free directories (/tmp -> /private/tmp)."""
    parts = pattern.split("/")
    literal = 0
    for index, part in enumerate(parts[:-1]):
        if _GLOB_CHARS.intersection(part) or part == "**":
            break
        literal = index + 1
    head = "/".join(parts[:literal]) or "/"
    resolved = os.path.realpath(head)
    rest = "/".join(parts[literal:])
    return resolved.rstrip("/") + "/" + rest if rest else resolved


def _mcp_covers(rule_tool: str, tool: str) -> bool:
    if rule_tool == tool:
        return True
    match = _MCP.fullmatch(rule_tool)
    if match is None or match["tool"] not in (None, "*"):
        return False
    return tool.startswith(f"mcp__{match['server']}__")
