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
- `mcp__server__tool`, `mcp__server__*` and `mcp__server` (every tool of that server).

Tool names are case-insensitive, and CamelCase names the snake_case tool (`PythonExec` is
`python_exec`). As in Claude Code, an `Edit` rule also covers `write` (and `notebook_edit`), and a
`Read` rule also covers `grep`, `find`, `ls` (and `notebook_read`).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from shard_core.engine.permissions.shell_words import command_name
from shard_core.types.errors import ConfigError

__all__ = [
    "DISPLAY_NAMES",
    "PATH_TOOLS",
    "PathPattern",
    "Rule",
    "parse_rule",
]

PATH_TOOLS = frozenset(
    {"read", "write", "edit", "grep", "find", "ls", "notebook_read", "notebook_edit"}
)
DISPLAY_NAMES = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "grep": "Grep",
    "find": "Find",
    "ls": "Ls",
    "notebook_read": "NotebookRead",
    "notebook_edit": "NotebookEdit",
    "notebook_run": "NotebookRun",
    "python_exec": "PythonExec",
}
# Which query tools a rule written for a tool also covers (Claude Code semantics); a notebook
# edit is an edit of that path, a notebook read a read of it.
_COVERS = {
    "edit": frozenset({"edit", "write", "notebook_edit"}),
    "read": frozenset({"read", "grep", "find", "ls", "notebook_read"}),
}
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

    @property
    def bare(self) -> bool:
        return self.words is None and self.path is None

    def covers_tool(self, tool: str) -> bool:
        if self.tool.startswith("mcp__"):
            return _mcp_covers(self.tool, tool)
        return tool.lower() in _COVERS.get(self.tool, frozenset({self.tool}))

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
    if spec is None or (spec.strip() == "*" and tool == "bash"):
        return Rule(text, tool)
    if tool == "bash":
        words, prefix = _command_words(spec)
        return Rule(text, tool, words=words, prefix=prefix)
    if tool in PATH_TOOLS:
        return Rule(text, tool, path=parse_path_pattern(spec))
    raise ValueError(
        f"{name}(…) takes no specifier; only Bash, Read, Edit, Write, Grep, Find, Ls, "
        "NotebookRead and NotebookEdit do"
    )


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
