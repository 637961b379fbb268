"""Reading `"hooks"` from config.json and a trusted project's `.shard/settings.json`.

The shape is Claude Code's: `{"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type":
"command", "command": "...", "timeout": 60}]}]}`. Each bad entry (an unknown event, a matcher
that is no regex, a hook without a command) is one diagnostic; the rest still load.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from shard_core.types import JsonObject

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PermissionRequest",
)
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PermissionRequest"})
"""events whose matcher is a tool name (the others match their source, trigger or kind)"""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0


@dataclass(frozen=True)
class HookCommand:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str
    sandbox: bool = True
    """run inside the agent's command sandbox (`"sandbox": false` in the entry: outside it)"""

    def matches(self, target: str | None) -> bool:
        """Whether the matcher selects `target` (a tool name, a start's source, a trigger);
        None: an event without a matcher, every hook runs."""
        if target is None or self.matcher in ("", "*"):
            return True
        return any(re.fullmatch(self.matcher, name) is not None for name in claude_names(target))


CLAUDE_NAMES = {"ls": ("LS",), "find": ("Glob",), "edit": ("MultiEdit",)}
"""Claude Code's names for Shard's tools where capitalising is not enough"""


def claude_names(name: str) -> set[str]:
    """`name` as Shard writes it (`web_fetch`) and as Claude Code's matchers say it (`WebFetch`);
    an MCP tool (`mcp__server__tool`) is named alike in both."""
    if name.startswith("mcp__"):
        return {name}
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    return {name, camel, *CLAUDE_NAMES.get(name, ())}


@dataclass
class HookConfig:
    hooks: list[HookCommand] = field(default_factory=list[HookCommand])
    diagnostics: list[str] = field(default_factory=list[str])

    def for_event(self, event: str, target: str | None = None) -> list[HookCommand]:
        return [h for h in self.hooks if h.event == event and h.matches(target)]


def load_hooks(
    settings: dict[str, Any], *, cwd: Path, trusted: bool, user_source: str = "config.json"
) -> HookConfig:
    """The hooks of config.json (`settings`) and, when trusted, of `cwd/.shard/settings.json`."""
    found = HookConfig()
    _parse(settings, user_source, found)
    project = cwd / ".shard" / "settings.json"
    if project.is_file():
        if not trusted:
            found.diagnostics.append(
                f"hooks: {project} ignored: project hooks run code, they need --trust-project"
            )
        else:
            try:
                data = json.loads(project.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                found.diagnostics.append(f"hooks: {project}: not readable JSON: {exc}")
                data = {}
            hooks: Any = (
                cast(dict[str, Any], data).get("hooks", {}) if isinstance(data, dict) else {}
            )
            _parse(hooks, str(project), found)
    return found


def _parse(settings: Any, source: str, found: HookConfig) -> None:
    if not isinstance(settings, dict):
        found.diagnostics.append(f"hooks ({source}): expected an object of events")
        return
    for event, entries in cast(dict[str, Any], settings).items():
        where = f"hooks ({source}) {event}"
        if event not in EVENTS:
            found.diagnostics.append(
                f"{where}: unknown event (known: {', '.join(EVENTS)}); skipped"
            )
            continue
        if not isinstance(entries, list):
            found.diagnostics.append(f"{where}: expected a list of matcher entries; skipped")
            continue
        for i, entry in enumerate(cast(list[Any], entries)):
            _entry(event, entry, f"{where}[{i}]", source, found)


def _entry(event: str, entry: Any, where: str, source: str, found: HookConfig) -> None:
    if not isinstance(entry, dict):
        found.diagnostics.append(f"{where}: expected an object with matcher and hooks; skipped")
        return
    entry = cast(dict[str, Any], entry)
    matcher = entry.get("matcher", "")
    if not isinstance(matcher, str):
        found.diagnostics.append(f"{where}: matcher must be a string; skipped")
        return
    try:
        re.compile("" if matcher == "*" else matcher)  # `*` is Claude Code's "every tool"
    except re.error as exc:
        found.diagnostics.append(f"{where}: matcher {matcher!r} is not a regex ({exc}); skipped")
        return
    hooks = entry.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        found.diagnostics.append(f"{where}: no hooks list; skipped")
        return
    for j, hook in enumerate(cast(list[Any], hooks)):
        spec: dict[str, Any] = cast(dict[str, Any], hook) if isinstance(hook, dict) else {}
        command = spec.get("command")
        kind = spec.get("type", "command") if spec else None
        if kind != "command":
            found.diagnostics.append(f"{where}.hooks[{j}]: only type 'command' is run; skipped")
            continue
        if not isinstance(command, str) or not command.strip():
            found.diagnostics.append(f"{where}.hooks[{j}]: missing command; skipped")
            continue
        timeout = spec.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            found.diagnostics.append(
                f"{where}.hooks[{j}]: timeout must be a positive number; {DEFAULT_TIMEOUT:g} s used"
            )
            timeout = DEFAULT_TIMEOUT
        sandbox = spec.get("sandbox", True)
        if not isinstance(sandbox, bool):
            found.diagnostics.append(
                f"{where}.hooks[{j}]: sandbox must be true or false; the sandbox is used"
            )
            sandbox = True
        limit = min(float(timeout), MAX_TIMEOUT)
        found.hooks.append(HookCommand(event, matcher, command, limit, source, sandbox))


def claude_input(input: JsonObject) -> JsonObject:
    """A call's input as a Claude Code hook reads it: Shard's `path` also as `file_path`."""
    if "path" in input and "file_path" not in input:
        return {**input, "file_path": input["path"]}
    return input


def shard_input(input: JsonObject) -> JsonObject:
    """A hook's `updatedInput` back in Shard's names (`file_path` wins: the hook changed it)."""
    if "file_path" not in input:
        return input
    changed = {k: v for k, v in input.items() if k != "file_path"}
    changed["path"] = input["file_path"]
    return changed
