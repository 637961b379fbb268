"""TerminalRenderer: events → a readable transcript; colour, and running tools' cards redrawn
live from their `tool_update`s (`live.py`), only when the stream is a TTY.

Everything an event carries is untrusted (model text, tool output, names, messages): it is
passed through `terminal_safe` before Shard adds its own colours, so it cannot move the cursor,
set the title or write the clipboard."""

from __future__ import annotations

import json
import sys
from typing import Literal, TextIO

from shard_core.engine.plurals import counted
from shard_core.protocol.events import (
    CompactionEvent,
    ErrorEvent,
    Event,
    GoalUpdateEvent,
    HookRunEvent,
    MessageCompleteEvent,
    MessageDeltaEvent,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    RestartedEvent,
    RewindEvent,
    StatusEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
    TurnEndEvent,
    UiRequestEvent,
    UiResolvedEvent,
    UsageEvent,
)
from shard_core.types import (
    CellEditDescriptor,
    DiffDescriptor,
    HookRunCheckpoint,
    KvDescriptor,
    ProgressDescriptor,
    RenderDescriptor,
    StatusDescriptor,
    TerminalDescriptor,
    TextDescriptor,
    TreeDescriptor,
    TreeNode,
    Usage,
    WebPageDescriptor,
)
from shard_kernel.terminal.escape import terminal_safe
from shard_kernel.terminal.live import LiveCards

STYLES = {
    "dim": "2",
    "bold": "1",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
}
MAX_LINES = 40
FOLDED = 6
"""lines of a web page shown under its title in a terminal (the rest stays folded)"""
LIVE_TEXT = 8
"""lines of a running tool's output shown on its live card when it has no descriptors"""


class TerminalRenderer:
    def __init__(
        self, out: TextIO | None = None, *, color: bool | None = None, live: bool | None = None
    ) -> None:
        self.out = out or sys.stdout
        self.color = self.out.isatty() if color is None else color
        self.live = self.out.isatty() if live is None else live
        """draw running tools' cards and redraw them in place (a log gets only the results)"""
        self._cards = LiveCards(self.out)
        self._in_text = False
        self._streamed = ""
        """the text deltas of the message under way shown so far: its `message_complete` shows
        what they missed (deltas are ephemeral, so a client that synced a gap or attached late
        gets only some of them, or none)"""

    def style(self, text: str, *names: str) -> str:
        """`text`, made safe, in Shard's colours."""
        text = terminal_safe(text)
        if not self.color or not names:
            return text
        codes = ";".join(STYLES[n] for n in names)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def __call__(self, event: Event) -> None:
        self.handle(event)

    def handle(self, event: Event) -> None:
        if isinstance(event, ToolUpdateEvent):
            if self.live:
                self._end_text()
                self._cards.update(event.tool_call_id, self.update_lines(event))
            return
        if isinstance(event, MessageDeltaEvent):
            if event.channel == "text":
                self._cards.freeze()
                self.out.write(terminal_safe(event.delta))
                self._in_text = True
                self._streamed += event.delta
                self.out.flush()
            return
        if isinstance(event, MessageCompleteEvent):
            streamed, self._streamed = self._streamed, ""
            text = event.message.text
            # what the deltas shown missed; if they are not its start, the whole text again
            missed = text[len(streamed) :] if text.startswith(streamed) else f"\n{text}"
            if missed.strip():
                self._cards.freeze()
                self.out.write(terminal_safe(missed.rstrip("\n")))
                self._in_text = True
            self._end_text()
            return
        self._end_text()
        line = self._line(event)
        if isinstance(event, ToolResultEvent) and self._cards.finish(event.tool_call_id):
            print(line, file=self.out, flush=True)  # in its card's place
            self._cards.redraw()  # the other running calls' cards, below it
            return
        if isinstance(event, TurnEndEvent):
            self._cards.clear()
        if line is not None:
            self._cards.freeze()
            print(line, file=self.out, flush=True)

    def _end_text(self) -> None:
        if self._in_text:
            print(file=self.out)
            self._in_text = False

    def _line(self, event: Event) -> str | None:
        if isinstance(event, ToolCallEvent):
            args = json.dumps(event.call.input, ensure_ascii=False)
            if len(args) > 200:
                args = args[:200] + "…"
            return (
                self.style(f"▶ {event.call.name}", "bold", "cyan") + " " + self.style(args, "dim")
            )
        if isinstance(event, ToolResultEvent):
            return self.result_text(event)
        if isinstance(event, PermissionRequestEvent):
            return self.style(f"? permission: {event.prompt}", "yellow")
        if isinstance(event, PermissionResolvedEvent):
            tone = "green" if event.decision != "deny" else "red"
            text = f"  {resolved_text(event)}"
            return self.style(text + (f" ({event.reason})" if event.reason else ""), tone)
        if isinstance(event, ErrorEvent):
            return self.style(f"✗ {event.message}", "red", "bold")
        if isinstance(event, UsageEvent):
            return None
        if isinstance(event, TurnEndEvent):
            return self.style(f"— {event.reason} · {format_usage(event.usage)}", "dim")
        return self._note(event)

    def _note(self, event: Event) -> str | None:
        """The lines about the agent rather than the conversation."""
        if isinstance(event, CompactionEvent):
            return self.style(
                f"⟳ compacted {counted(event.entries_folded, 'entry')}: "
                f"{event.tokens_before} → {event.tokens_after} tokens",
                "dim",
            )
        return self._notice(event)

    def _notice(self, event: Event) -> str | None:
        if isinstance(event, StatusEvent) and event.message:
            return self.style(f"· {event.message}", "dim")
        if isinstance(event, RestartedEvent):
            return self.style(f"↻ restarted; lost: {', '.join(event.lost) or 'nothing'}", "yellow")
        if isinstance(event, UiRequestEvent) and event.ui == "question":
            return self.style(question_text(event), "yellow")
        if isinstance(event, UiResolvedEvent) and isinstance(event.value, list):
            return self.style(f"✓ {event.decided_by} answered: {'; '.join(event.value)}", "blue")
        if isinstance(event, GoalUpdateEvent):
            tone = "yellow" if event.action == "stopped" else "blue"
            return self.style(f"◎ {goal_line(event)}", tone)
        if isinstance(event, RewindEvent):
            return self.style(f"↺ {rewind_line(event)}", "yellow" if event.failed else "blue")
        if isinstance(event, HookRunEvent):
            tone = {"error": "red", "warn": "yellow"}.get(hook_tone(event.run), "dim")
            return self.style(f"⚓ {hook_run_text(event.run)}", tone)
        return None

    def update_lines(self, event: ToolUpdateEvent) -> list[str]:
        """A running call's card: its name, then its partial state's descriptors (a terminal's
        screen, a progress) or the last lines of its output."""
        lines = [self.style(f"… {event.name}", "bold", "cyan")]
        descriptors = event.partial.render or []
        if not descriptors:
            tail = event.partial.text.splitlines()[-LIVE_TEXT:]
            descriptors = [TextDescriptor(text="\n".join(tail))] if tail else []
        for descriptor in descriptors:
            lines.extend("  " + row for row in self.descriptor(descriptor))
        return lines

    def result_text(self, event: ToolResultEvent) -> str:
        head = "✗" if event.result.is_error else "✓"
        tone = "red" if event.result.is_error else "green"
        lines = [self.style(f"{head} {event.name}", tone)]
        descriptors = event.result.render or []
        if not descriptors:
            descriptors = [TextDescriptor(text=event.result.text)]
        for descriptor in descriptors:
            lines.extend("  " + row for row in self.descriptor(descriptor))
        return "\n".join(lines)

    def descriptor(self, d: RenderDescriptor) -> list[str]:
        if isinstance(d, TextDescriptor):
            return _clip([terminal_safe(row) for row in d.text.splitlines()])
        if isinstance(d, KvDescriptor):
            return [f"{self.style(p.k, 'dim')}: {terminal_safe(p.v)}" for p in d.pairs]
        if isinstance(d, DiffDescriptor):
            return self._diff(d)
        if isinstance(d, TreeDescriptor):
            return _clip([terminal_safe(row) for row in _tree(d.root, "")])
        if isinstance(d, ProgressDescriptor):
            total = f"/{d.total:g}" if d.total is not None else ""
            return [terminal_safe(f"{d.label}: {d.current:g}{total}")]
        if isinstance(d, StatusDescriptor):
            tone = {"error": "red", "warn": "yellow", "success": "green"}.get(d.tone, "blue")
            return [self.style(d.label, tone)]
        if isinstance(d, CellEditDescriptor):
            where = f"{d.path} · cell {d.cell_id} (proposed, not applied)"
            summary = [terminal_safe(row) for row in d.summary.splitlines()]
            return summary + self._diff(DiffDescriptor(path=where, hunks=d.hunks))
        if isinstance(d, TerminalDescriptor):
            lab = f" · in Lab: {d.server_terminal}" if d.server_terminal else ""
            head = f"terminal {d.terminal_id} ({d.name}): {d.command} — {d.state}{lab}"
            screen = [terminal_safe(row) for row in d.screen.splitlines()] or ["(blank)"]
            return [self.style(terminal_safe(head), "bold"), *_clip(screen)]
        if isinstance(d, WebPageDescriptor):
            title = self.style(terminal_safe(d.title or d.url), "bold")
            rows = [title, self.style(terminal_safe(d.url), "cyan")]
            return rows + _clip([terminal_safe(row) for row in d.text.splitlines()[:FOLDED]])
        return []

    def _diff(self, d: DiffDescriptor) -> list[str]:
        rows = [self.style(f"--- {d.path} ({d.status})", "bold")]
        for hunk in d.hunks:
            rows.append(
                self.style(
                    f"@@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@",
                    "cyan",
                )
            )
            for line in hunk.lines:
                tone = {"+": "green", "-": "red"}.get(line[:1])
                rows.append(self.style(line, tone) if tone else terminal_safe(line))
        return _clip(rows)


def _tree(node: TreeNode, indent: str) -> list[str]:
    rows = [f"{indent}{node.label}{'/' if node.is_dir and not node.label.endswith('/') else ''}"]
    for child in node.children:
        rows.extend(_tree(child, indent + "  "))
    return rows


def _clip(rows: list[str]) -> list[str]:
    if len(rows) <= MAX_LINES:
        return rows
    half = MAX_LINES // 2
    return [*rows[:half], f"… {len(rows) - MAX_LINES} more lines …", *rows[-half:]]


_VERBS = {"allow": "allowed", "allow_always": "allowed always", "deny": "denied"}
_BY_RULE = {"rule": "rule", "grant": "grant"}


def resolved_text(event: PermissionResolvedEvent) -> str:
    """ "allowed by rule Bash(pytest:*)", "denied by alice · Tab 2", "allowed by plan mode"."""
    verb = _VERBS.get(event.decision, event.decision)
    kind = _BY_RULE.get(event.source)
    who = f"{kind} {event.rule}" if kind and event.rule else event.decided_by
    return f"{verb} by {who}"


HookTone = Literal["info", "warn", "error"]
_HOOK_TONES: dict[str, HookTone] = {
    "block": "warn", "deny": "warn", "stop": "warn", "continue": "warn", "error": "error"
}  # fmt: skip


def hook_tone(run: HookRunCheckpoint) -> HookTone:
    """info, warn (it blocked, denied, stopped or kept the agent going) or error."""
    return _HOOK_TONES.get(run.decision, "info")


def hook_run_text(run: HookRunCheckpoint) -> str:
    """ "hook PreToolUse (bash) `./policy.sh`: deny, exit 2, 12 ms: no rm here" and the hook's
    message for the user on the next line."""
    what = f"hook {run.event}" + (f" ({run.tool})" if run.tool else "")
    ended = "timed out" if run.timed_out else f"exit {run.exit_code}"
    sandbox = ", sandboxed" if run.sandboxed else ""
    text = f"{what} `{run.command}`: {run.decision}, {ended}, {run.duration_ms:g} ms{sandbox}"
    if run.reason:
        text += f": {run.reason}"
    if run.system_message:
        text += f"\n{run.system_message}"
    return text


def format_usage(usage: Usage) -> str:
    parts = [f"{usage.input_tokens} in", f"{usage.output_tokens} out"]
    if usage.cache_read_tokens:
        parts.append(f"{usage.cache_read_tokens} cached")
    if usage.cost_usd is None:
        parts.append("cost unknown")
    elif usage.cost_usd:
        parts.append(f"${usage.cost_usd:.4f}")
    return " · ".join(parts)


def goal_line(event: GoalUpdateEvent) -> str:
    """A goal change in words, as every client says it (labextension transcript-items.ts)."""
    text = event.text or ""
    detail = f" ({event.message})" if event.message else ""
    if event.action == "set":
        return f"Goal set: {text}"
    if event.action == "done":
        by = ", the agent reports" if event.source == "model" else ""
        return f"Goal met{by}: {text}{detail}"
    if event.action == "cleared":
        return "Goal cleared."
    if event.action == "continued":
        return f"Going on toward the goal{detail}."
    return f"Goal not met: {event.message or 'stopped'}."


def rewind_line(event: RewindEvent) -> str:
    """What a rewind (from any client) put back, in one line."""
    what = {"code": "files", "conversation": "the conversation", "both": "files and conversation"}
    parts = [f"rewound {what[event.scope]} to before entry {event.to_entry_id}"]
    if event.restored:
        parts.append("restored " + ", ".join(event.restored))
    if event.kept:
        parts.append("kept as a person left them: " + ", ".join(event.kept))
    if event.failed:
        parts.append("not restored: " + "; ".join(event.failed))
    return "; ".join(parts) + f" (undo: /rewind undo, or rewind to before {event.entry_id})"


def question_text(event: UiRequestEvent) -> str:
    """An ask_user question as lines: the question, its numbered choices, how it is answered."""
    kind = "choose one or more" if event.multi else "choose one"
    other = "; or answer in your own words" if event.allow_other else ""
    lines = [f"? {event.title}", *(f"  {n}. {o}" for n, o in enumerate(event.options, 1))]
    lines.append(f"  ({kind}{other}, in the widget or the Lab chat)")
    return "\n".join(lines)
