"""The six terminal tools: open, send, read, wait, close, list.

A terminal outlives the turn that opened it; the model reads it as a screen (what a person
would see) plus the output since its last read. `terminal_send` types into it: its text is a
command line the permission gate judges like bash (it is not read-only, so without a rule it
is asked, and the ask shows the line); keys (Enter, Ctrl-C, arrows, …) are sent after it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import cast

from shard_core.capabilities.terminals.registry import Terminals, table
from shard_core.capabilities.terminals.terminal import Terminal
from shard_core.contracts import ToolContext
from shard_core.contracts.access import CommandAccess, ToolAccess
from shard_core.types import JsonObject, RenderDescriptor, ToolResult
from shard_core.types.render import TerminalDescriptor, TextDescriptor

MAX_WAIT = 600.0
KEYS: Mapping[str, str] = {
    "enter": "\r", "tab": "\t", "escape": "\x1b", "esc": "\x1b", "backspace": "\x7f",
    "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
    "home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
    "delete": "\x1b[3~", "space": " ",
}  # fmt: skip
_CTRL = re.compile(r"(?:ctrl|c)-([a-z\[\\\]^_])", re.IGNORECASE)


def key_bytes(name: str) -> str | None:
    """`Enter`, `Ctrl-C`, `Up`, … as what the key sends; None for a name that is not a key."""
    low = name.strip().lower().replace("+", "-").replace(" ", "")
    if low in KEYS:
        return KEYS[low]
    match = _CTRL.fullmatch(low)
    if match:
        return chr(ord(match[1].upper()) & 0x1F)
    return None


def _id_schema(extra: JsonObject | None = None, required: tuple[str, ...] = ("id",)) -> JsonObject:
    properties: JsonObject = {"id": {"type": "string", "description": "the terminal's id or name"}}
    properties.update(extra or {})
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}  # fmt: skip


def view(terminal: Terminal, *, new: bool = True, note: str = "") -> ToolResult:
    """The terminal as the model reads it: state, the screen, and the output since last read."""
    screen = terminal.screen.text()
    state = terminal.state
    parts = [f"terminal {terminal.id} ({terminal.name}): {terminal.command} — {state}"]
    if note:
        parts.append(note)
    if new:
        fresh, dropped = terminal.screen.take_new()
        if dropped:
            parts.append(f"[{dropped:,} earlier characters of output were dropped]")
        if fresh.strip():
            parts += ["--- output since the last read ---", fresh.rstrip()]
    parts += ["--- screen ---", screen or "(blank)"]
    card = TerminalDescriptor(terminal_id=terminal.id, name=terminal.name,
                              command=terminal.command, state=state, screen=screen,
                              server_terminal=terminal.server_name)  # fmt: skip
    served = {} if terminal.server_name is None else {"server_terminal": terminal.server_name}
    return ToolResult.ok("\n".join(parts), card, terminal=terminal.id, state=state,
                         pid=terminal.pid, sandbox=terminal.sandbox, **served)  # fmt: skip


class _OnTerminal:
    """A tool that acts on one terminal named by `id`: the lookup and its error, then `run`."""

    name: str

    def __init__(self, terminals: Terminals) -> None:
        self.terminals = terminals

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        terminal = self.terminals.get(input)
        if isinstance(terminal, str):
            return ToolResult.error(f"{self.name}: {terminal}")
        return await self.run(terminal, input, ctx)

    async def run(self, terminal: Terminal, input: JsonObject, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


class TerminalOpenTool:
    name = "terminal_open"
    description = (
        "Open a terminal that stays open across turns: an interactive shell, or `command` (a "
        "REPL, a dev server, psql, a debugger). Sandboxed like bash. Drive it with "
        "terminal_send and terminal_wait; read it with terminal_read; close it when done."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "what to run (default: a shell)"},
            "cwd": {"type": "string", "description": "a folder in the workspace"},
            "name": {"type": "string"},
        },
        "additionalProperties": False,
    }
    read_only = False
    kind = "execute"
    access: ToolAccess = CommandAccess("command")
    """judged like bash; without a command (a shell) the call is asked"""

    def __init__(self, terminals: Terminals) -> None:
        self.terminals = terminals

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        command = input.get("command")
        text = command if isinstance(command, str) and command else "an interactive shell"
        return [TextDescriptor(text=text, format="code", language="bash")]

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        terminal = await self.terminals.open(input, ctx)
        if isinstance(terminal, str):
            return ToolResult.error(f"terminal_open: {terminal}")
        await terminal.changed(0.5)  # the first prompt, usually
        return view(terminal, note=f"opened in {terminal.cwd} (sandbox: {terminal.sandbox})")


class TerminalSendTool(_OnTerminal):
    name = "terminal_send"
    description = (
        "Type into a terminal: `text` (sent with Enter unless `enter` is false), then `keys` "
        "(Enter, Tab, Escape, Backspace, Up, Down, Left, Right, Home, End, PageUp, PageDown, "
        "Delete, Ctrl-C, Ctrl-D, Ctrl-Z, …). Returns at once; use terminal_wait to see the "
        "answer."
    )
    input_schema: JsonObject = _id_schema({
        "text": {"type": "string"},
        "enter": {"type": "boolean", "description": "press Enter after `text` (default true)"},
        "keys": {"type": "array", "items": {"type": "string"}},
    })  # fmt: skip
    read_only = False
    kind = "execute"
    access: ToolAccess = CommandAccess("text")
    """the typed line is judged like a bash command (`Bash(…)` rules); keys alone are asked"""

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        shown = describe_send(input)
        return [TextDescriptor(text=shown, format="code", language="bash")] if shown else []

    async def run(self, terminal: Terminal, input: JsonObject, ctx: ToolContext) -> ToolResult:
        payload = send_bytes(input)
        if isinstance(payload, str):
            return ToolResult.error(f"terminal_send: {payload}")
        if not terminal.alive:
            return ToolResult.error(
                f"terminal_send: terminal {terminal.id} has {_ended(terminal)}; open a new one"
            )
        try:
            await terminal.send(payload)
        except OSError as exc:
            return ToolResult.error(f"terminal_send: {exc}")
        sent = describe_send(input)
        return ToolResult.ok(f"sent to {terminal.id}: {sent}", terminal=terminal.id, sent=sent)


def send_bytes(input: JsonObject) -> bytes | str:
    text = input.get("text", "")
    if not isinstance(text, str):
        return "`text` must be text"
    keys = input.get("keys", [])
    if not isinstance(keys, list):
        return "`keys` must be a list of key names"
    enter = input.get("enter", True)
    if not isinstance(enter, bool):
        return "`enter` must be true or false"
    if not text and not keys:
        return "give `text`, `keys`, or both"
    out = text + ("\r" if text and enter else "")
    for key in cast(list[object], keys):
        sent = key_bytes(key) if isinstance(key, str) else None
        if sent is None:
            return f"{key!r} is not a key (Enter, Tab, Escape, Up, Ctrl-C, …)"
        out += sent
    return out.encode("utf-8")


def describe_send(input: JsonObject) -> str:
    text = input.get("text")
    keys = input.get("keys")
    parts = [text] if isinstance(text, str) and text else []
    if isinstance(keys, list):
        parts += [f"<{k}>" for k in cast(list[object], keys)]
    return " ".join(str(p) for p in parts)


class TerminalReadTool(_OnTerminal):
    name = "terminal_read"
    description = "Read a terminal: its screen now, and the output since the last read."
    input_schema: JsonObject = _id_schema()
    read_only = True
    kind = "read"

    async def run(self, terminal: Terminal, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return view(terminal)


class TerminalWaitTool(_OnTerminal):
    name = "terminal_wait"
    description = (
        "Wait on a terminal until `pattern` (a regular expression) appears in its new output or "
        "screen, until it has been quiet for `quiet` seconds, until its process ends, or until "
        "`timeout` (default 30 s, at most 600); then read it."
    )
    input_schema: JsonObject = _id_schema({
        "pattern": {"type": "string"},
        "quiet": {"type": "number", "exclusiveMinimum": 0},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_WAIT},
    })  # fmt: skip
    read_only = True
    kind = "read"

    async def run(self, terminal: Terminal, input: JsonObject, ctx: ToolContext) -> ToolResult:
        pattern = input.get("pattern")
        try:
            regex = re.compile(pattern, re.MULTILINE) if isinstance(pattern, str) else None
        except re.error as exc:
            return ToolResult.error(f"terminal_wait: bad pattern {pattern!r}: {exc}")
        quiet, timeout = input.get("quiet"), input.get("timeout", 30.0)
        if quiet is not None and (not isinstance(quiet, int | float) or quiet <= 0):
            return ToolResult.error("terminal_wait: `quiet` must be a number of seconds > 0")
        if not isinstance(timeout, int | float) or not 0 < timeout <= MAX_WAIT:
            return ToolResult.error(f"terminal_wait: `timeout` must be in (0, {MAX_WAIT:g}] s")

        def progress() -> None:
            if ctx.on_update is not None:
                ctx.on_update(view(terminal, new=False))

        seconds = float(quiet) if quiet else None
        why = await wait_for(terminal, regex, seconds, float(timeout), ctx, progress)
        return view(terminal, note=why)


async def wait_for(
    terminal: Terminal,
    regex: re.Pattern[str] | None,
    quiet: float | None,
    timeout: float,  # noqa: ASYNC109 - the tool's own argument, checked in the loop
    ctx: ToolContext,
    progress: Callable[[], object],
) -> str:
    started = time.monotonic()
    end = started + timeout
    quiet_from = time.monotonic()
    while True:
        seen = terminal.version
        if regex is not None and (
            regex.search(terminal.screen.peek_new()) or regex.search(terminal.screen.text())
        ):
            return f"matched {regex.pattern!r} after {time.monotonic() - started:.1f} s"
        if not terminal.alive:
            return f"the process {_ended(terminal)}"
        now = time.monotonic()
        if quiet is not None and now - max(terminal.last_output, quiet_from) >= quiet:
            return f"quiet for {quiet:g} s"
        if ctx.cancel.is_set():
            return "stopped: the turn was interrupted"
        if now >= end:
            return f"timed out after {timeout:g} s" + (
                f" without {regex.pattern!r}" if regex is not None else ""
            )
        step = min(0.25, end - now)
        if quiet is not None:
            step = min(step, max(0.01, quiet - (now - max(terminal.last_output, quiet_from))))
        if await terminal.changed(step, seen):
            progress()


class TerminalCloseTool(_OnTerminal):
    name = "terminal_close"
    description = "Close a terminal: its process and everything it started end."
    input_schema: JsonObject = _id_schema()
    read_only = False
    kind = "execute"

    async def run(self, terminal: Terminal, input: JsonObject, ctx: ToolContext) -> ToolResult:
        was_alive = terminal.alive
        await terminal.close()
        self.terminals.by_id.pop(terminal.id, None)
        how = "closed" if was_alive else f"removed (it had {_ended(terminal)})"
        return ToolResult.ok(f"terminal {terminal.id} {how}", terminal=terminal.id)


class TerminalListTool:
    name = "terminal_list"
    description = "The agent's terminals: id, name, command, state."
    input_schema: JsonObject = {"type": "object", "properties": {}, "additionalProperties": False}
    read_only = True
    kind = "read"

    def __init__(self, terminals: Terminals) -> None:
        self.terminals = terminals

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        text = table(self.terminals)
        return ToolResult.ok(text, count=len(self.terminals.by_id))


def _ended(terminal: Terminal) -> str:
    return "ended" + ("" if terminal.exit_status is None else f" (exit {terminal.exit_status})")
