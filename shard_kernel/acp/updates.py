"""Shard's events as ACP session updates: pure functions, no connection.

A streamed text or thinking delta is an `agent_message_chunk` / `agent_thought_chunk`; a tool
call is a `tool_call` (its ACP kind as its tool declares it, a title, the paths it touches, the
raw input); a running tool's partial result and its final result are `tool_call_update`s whose
content is the text, a `diff` (old and new text) for each file it changed, and for bash the
command above its output; a terminal tool's is the terminal's screen (a fenced block), a web
tool's a `resource_link` per page (web_fetch's text below it), and their `rawOutput` that text
as a string (what jupyter-ai's tool card shows). Usage becomes a `usage_update`; a hook's run a
finished `tool_call`.

ACP's own `terminal` content names a terminal the host made (`terminal/create`), which runs a
command and takes no input; Shard's terminals are the agent's (a PTY or a Jupyter server
terminal, driven by terminal_send), so their screen goes as content instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandInput,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    ResourceContentBlock,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    UnstructuredCommandInput,
    UsageUpdate,
    UserMessageChunk,
)

from shard_core.contracts import Tool
from shard_core.contracts.tool import tool_kind
from shard_core.protocol.events import (
    Event,
    HookRunEvent,
    MessageDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
    TurnStartEvent,
    UsageEvent,
)
from shard_core.types import (
    DiffDescriptor,
    JsonObject,
    RenderDescriptor,
    TerminalDescriptor,
    ToolResult,
    WebPageDescriptor,
)
from shard_core.types.content import ToolKind
from shard_core.types.session import HookRunCheckpoint, PlanCheckpoint, TodoItem
from shard_kernel.terminal.render import hook_run_text

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UsageUpdate
)
ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
Lookup = Callable[[str], Tool | None]

_PATH_KEYS = ("path", "file_path", "notebook_path", "notebook")
_WHAT_KEYS = ("command", *_PATH_KEYS, "pattern", "query", "url", "name", "text", "id")
_TITLE_LIMIT = 120


def text_chunk(text: str, *, thought: bool = False) -> AgentMessageChunk | AgentThoughtChunk:
    block = {"type": "text", "text": text}  # validated once, with its chunk
    if thought:
        return AgentThoughtChunk(session_update="agent_thought_chunk", content=block)  # pyright: ignore[reportArgumentType]
    return AgentMessageChunk(session_update="agent_message_chunk", content=block)  # pyright: ignore[reportArgumentType]


def user_chunk(text: str) -> UserMessageChunk:
    block = TextContentBlock(type="text", text=text)
    return UserMessageChunk(session_update="user_message_chunk", content=block)


def command_entry(name: str, description: str, hint: str) -> AvailableCommand:
    """One slash command as `available_commands_update` lists it (its hint as the input hint)."""
    given = AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None
    return AvailableCommand(name=name, description=description, input=given)


def title_of(name: str, input: JsonObject) -> str:
    """`bash: pytest -q`, `edit: calc.py`: the tool and what it acts on, on one line."""
    for key in _WHAT_KEYS:
        value = input.get(key)
        if isinstance(value, str) and value.strip():
            what = " ".join(value.split())
            if len(what) > _TITLE_LIMIT:
                what = what[:_TITLE_LIMIT] + "…"
            return f"{name}: {what}"
    return name


def locations_of(input: JsonObject, cwd: Path) -> list[ToolCallLocation]:
    """The files a call names, as absolute paths (an ACP host opens them)."""
    found: list[ToolCallLocation] = []
    for key in _PATH_KEYS:
        value = input.get(key)
        if isinstance(value, str) and value:
            path = Path(value).expanduser()
            found.append(ToolCallLocation(path=str(path if path.is_absolute() else cwd / path)))
    return found


def tool_call_start(
    call_id: str, name: str, input: JsonObject, cwd: Path, lookup: Lookup
) -> ToolCallStart:
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=call_id,
        title=title_of(name, input),
        kind=tool_kind(lookup(name)),
        status="pending",
        locations=locations_of(input, cwd),
        raw_input=input,
    )


def diff_content(diff: DiffDescriptor, cwd: Path) -> FileEditToolCallContent:
    """A diff descriptor's hunks as ACP's old and new text (the changed regions with their
    context, hunks apart by a blank line); a created file has no old text."""
    old: list[str] = []
    new: list[str] = []
    for index, hunk in enumerate(diff.hunks):
        if index:
            old.append("")
            new.append("")
        for line in hunk.lines:
            tag, body = line[:1], line[1:]
            if tag == "-":
                old.append(body)
            elif tag == "+":
                new.append(body)
            elif tag == " ":
                old.append(body)
                new.append(body)
    path = Path(diff.path)
    absolute = str(path if path.is_absolute() else cwd / path)
    return FileEditToolCallContent(
        type="diff",
        path=absolute,
        old_text=None if diff.status == "created" else "\n".join(old),
        new_text="" if diff.status == "deleted" else "\n".join(new),
    )


def _text(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def preview_content(preview: Sequence[RenderDescriptor], cwd: Path) -> list[ToolContent]:
    """What the gate shows before a call runs: its diffs, and its command or other text."""
    out: list[ToolContent] = []
    for item in preview:
        if isinstance(item, DiffDescriptor):
            out.append(diff_content(item, cwd))
        elif getattr(item, "kind", None) == "text":
            out.append(_text(str(getattr(item, "text", ""))))
    return out


def result_content(
    name: str, input: JsonObject, result: ToolResult, cwd: Path
) -> list[ToolContent]:
    """A result's diffs, then its text; a command's text starts with the command itself; a
    terminal's screen or a web tool's pages in place of the text (see the module's docstring)."""
    out: list[ToolContent] = [
        diff_content(item, cwd) for item in result.render if isinstance(item, DiffDescriptor)
    ]
    shown = shown_content(result)
    if shown is not None:
        return [*out, *shown]
    text = result.text
    command = input.get("command")
    if isinstance(command, str) and command:
        text = f"$ {command}\n{text}" if text else f"$ {command}"
    if text:
        out.append(_text(text))
    return out


def shown_content(result: ToolResult) -> list[ToolContent] | None:
    """A terminal's screen, or the pages a web tool read or found; None for other results."""
    terminals = [r for r in result.render if isinstance(r, TerminalDescriptor)]
    if terminals:
        return [_text(screen_text(card)) for card in terminals]
    pages = [r for r in result.render if isinstance(r, WebPageDescriptor)]
    if not pages:
        return None
    if len(pages) == 1 and not pages[0].url.startswith("file:") and result.text:  # web_fetch
        return [_link(pages[0], snippet=False), _text(result.text)]
    return [_link(page, snippet=True) for page in pages]  # web_search's hits


def screen_text(card: TerminalDescriptor) -> str:
    """The terminal under a line naming it: its screen in a fence no line of it can close."""
    head = f"terminal {card.terminal_id} ({card.name}): {card.command} - {card.state}"
    if card.server_terminal:
        head += f" - Jupyter terminal {card.server_terminal}"
    screen = card.screen.rstrip("\n") or "(blank)"
    fence = "`" * max(3, _longest_run(screen, "`") + 1)
    return f"{head}\n{fence}text\n{screen}\n{fence}"


def _longest_run(text: str, char: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _link(page: WebPageDescriptor, *, snippet: bool) -> ContentToolCallContent:
    link = ResourceContentBlock(
        type="resource_link",
        uri=page.url,
        name=page.title or page.url,
        title=page.title or None,
        description=(page.text or None) if snippet else None,
    )
    return ContentToolCallContent(type="content", content=link)


def raw_output(result: ToolResult) -> object:
    """`rawOutput`: a terminal's or a web tool's text as a string (jupyter-ai's card shows a
    string as it is and anything else as JSON), other results' text, error flag and details."""
    if any(isinstance(r, TerminalDescriptor | WebPageDescriptor) for r in result.render):
        return result.text
    raw: dict[str, Any] = {"text": result.text, "isError": result.is_error}
    if result.details:
        raw["details"] = result.details
    return raw


def _status(result: ToolResult) -> ToolCallStatus:
    return "failed" if result.is_error else "completed"


class UpdateMapper:
    """Turns one agent's events into ACP updates; remembers each call's input for its result."""

    def __init__(self, cwd: Path, lookup: Lookup) -> None:
        self.cwd = cwd
        self.lookup = lookup
        self.inputs: dict[str, tuple[str, JsonObject]] = {}
        self.kinds: dict[str, ToolKind] = {}
        """each call's kind as its event said (a permission request about it reuses it)"""
        self.prompted: set[str] = set()
        """the turns whose prompt was logged (their turn_start came)"""
        self.stops: dict[str, HookRunCheckpoint] = {}
        """each turn's last hook run that blocked or stopped it"""

    def turn_over(self, turn_id: str) -> tuple[bool, HookRunCheckpoint | None]:
        """Whether a turn's prompt was logged, and the hook that last stopped it (forgotten)."""
        prompted = turn_id in self.prompted
        self.prompted.discard(turn_id)
        return prompted, self.stops.pop(turn_id, None)

    def __call__(self, event: Event) -> list[Update]:
        if isinstance(event, MessageDeltaEvent):
            if event.channel == "tool_call" or not event.delta:
                return []
            return [text_chunk(event.delta, thought=event.channel == "thinking")]
        if isinstance(event, ToolCallEvent):
            call = event.call
            self.inputs[call.id] = (call.name, call.input)
            self.kinds[call.id] = event.kind
            start = tool_call_start(call.id, call.name, call.input, self.cwd, self.lookup)
            if start.kind == "other" and event.kind != "other":  # a tool this side cannot see
                start.kind = event.kind
            return [start]
        if isinstance(event, ToolUpdateEvent):
            return [self.progress(event.tool_call_id, event.name, event.partial, "in_progress")]
        if isinstance(event, ToolResultEvent):
            update = self.progress(
                event.tool_call_id, event.name, event.result, _status(event.result)
            )
            self.inputs.pop(event.tool_call_id, None)
            todos = todos_update(event)
            return [update] if todos is None else [update, todos]
        if isinstance(event, TurnStartEvent):
            self.prompted.add(event.turn_id)
            return []
        if isinstance(event, HookRunEvent):
            if event.run.turn_id and event.run.decision in ("block", "stop"):
                self.stops[event.run.turn_id] = event.run
            return [hook_card(event)]
        if isinstance(event, UsageEvent) and event.context_window:
            return [
                UsageUpdate(
                    session_update="usage_update",
                    used=event.context_tokens,
                    size=event.context_window,
                )
            ]
        return []

    def progress(
        self, call_id: str, name: str, result: ToolResult, status: ToolCallStatus
    ) -> ToolCallProgress:
        _, input = self.inputs.get(call_id, (name, {}))
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call_id,
            status=status,
            content=result_content(name, input, result, self.cwd),
            raw_output=raw_output(result),
        )


def hook_card(event: HookRunEvent) -> ToolCallStart:
    """A hook's run as a finished tool call of kind `other` (what an ACP host draws as a card):
    its title names the event and the command, its content says how it ended."""
    run = event.run
    title = f"hook {run.event}: {run.command}"
    if len(title) > _TITLE_LIMIT:
        title = title[:_TITLE_LIMIT] + "…"
    text = TextContentBlock(type="text", text=hook_run_text(run))
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=f"hook-{event.entry_id}",
        title=title,
        kind="other",
        status="failed" if run.decision == "error" else "completed",
        content=[ContentToolCallContent(type="content", content=text)],
        raw_input=run.model_dump(mode="json", exclude_none=True),
    )


ACP_STATUS: dict[str, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}


def todos_update(event: ToolResultEvent) -> AgentPlanUpdate | None:
    """A successful `todo_write`'s list (the whole of it, as ACP plans are) as plan entries."""
    raw = event.result.details.get("todos")
    if event.name != "todo_write" or event.result.is_error or not isinstance(raw, list):
        return None
    return todos_plan([TodoItem.model_validate(item) for item in raw])


def todos_plan(items: Sequence[TodoItem]) -> AgentPlanUpdate:
    """A todo list (the whole of it, as ACP plans are) as plan entries."""
    entries = [
        PlanEntry(content=i.content, priority="medium", status=ACP_STATUS[i.status]) for i in items
    ]
    return AgentPlanUpdate(session_update="plan", entries=entries)


def plan_update(plan: PlanCheckpoint) -> AgentPlanUpdate:
    """Plan mode's plan (or build mode's progress through it) as ACP plan entries."""
    entries = [
        PlanEntry(
            content=step.text,
            priority="medium",
            status="completed" if step.done else "pending",
        )
        for step in plan.steps
    ]
    return AgentPlanUpdate(session_update="plan", entries=entries)
