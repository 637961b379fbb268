"""The todos capability: `todo_write` and the `TodosCheckpoint` written after its result.

    todos = TodosCapability(store=lambda: session_store)
    await host.install("shard.todos", todos)

A call's list replaces the previous one whole. A list with a duplicate id, an empty content or
an unknown status is an error result for the model; the list kept before stays. The checkpoint
follows the tool's result (the `tool_result` hook), like the files checkpoints do. Plan mode's
plan becomes the same list: a turn that ends with a new plan writes it as a `TodosCheckpoint`
(source `plan`, one pending item a step, done steps done). Once bound to the session, every
status event carries the list, so each client pins it as a checklist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, cast

from pydantic import ValidationError

from shard_core.capabilities.commands import literal
from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import ToolResultEvent, TurnEndEvent
from shard_core.types import (
    CheckpointEntry,
    JsonObject,
    PlanCheckpoint,
    SessionEntry,
    TodoItem,
    TodosCheckpoint,
    ToolResult,
)

NAME = "todo_write"
MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
DESCRIPTION = (
    "Write your todo list for this task: the whole list each call (it replaces the previous "
    "one). Each item has a unique `id`, a `content` and a `status` (pending, in_progress, "
    "done). Keep one item in_progress while you work on it; mark items done as you finish."
)
SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "content": {"type": "string"},
                    "status": {"type": "string", "enum": list(MARKS)},
                },
                "required": ["id", "content", "status"],
            },
        }
    },
    "required": ["todos"],
}


def checklist(items: Iterable[TodoItem]) -> str:
    """The list as text lines, one per item: `[x] content` (done), `[~]` in progress, `[ ]`."""
    lines = [f"{MARKS[i.status]} {i.content}" for i in items]
    return "\n".join(lines) if lines else "(empty list)"


def plan_items(plan: PlanCheckpoint) -> list[TodoItem]:
    """Plan mode's plan as todo items: one a step, numbered, done steps done."""
    return [TodoItem(id=str(n), content=step.text, status="done" if step.done else "pending")
            for n, step in enumerate(plan.steps, 1) if step.text.strip()]  # fmt: skip


def latest_todos(entries: Iterable[SessionEntry]) -> TodosCheckpoint | None:
    found: TodosCheckpoint | None = None
    for entry in entries:
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, TodosCheckpoint):
            found = entry.details
    return found


def parse_items(input: JsonObject) -> list[TodoItem] | str:
    """The items of a call, or the message saying what is wrong with them."""
    raw = input.get("todos")
    if not isinstance(raw, list):
        return "`todos` must be a list of {id, content, status} items"
    try:
        items = [TodoItem.model_validate(item) for item in cast("list[object]", raw)]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"a todo item is not valid ({where}: {first['msg']}); the list was not changed"
    ids = [i.id for i in items]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        listed = ", ".join(dupes)
        return f"duplicate todo ids {listed}: each id must be unique; the list was not changed"
    return items


class TodoSession(Protocol):
    """What the todos capability uses of the session it is bound to (AgentSession is one):
    its status events carry `todos`."""

    todos: list[TodoItem] | None

    def emit_status(self, message: str | None = None) -> object: ...


class TodoWriteTool:
    name = NAME
    description = DESCRIPTION
    input_schema = SCHEMA
    read_only = True  # it changes no file: the plan is the agent's own state

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        items = parse_items(input)
        if isinstance(items, str):
            return ToolResult.error(items)
        done = sum(i.status == "done" for i in items)
        text = f"Todo list ({done}/{len(items)} done):\n{checklist(items)}"
        return ToolResult.ok(text, todos=[i.model_dump() for i in items])


class TodosCapability:
    def __init__(self, *, store: Callable[[], SessionStore | None]) -> None:
        self._store = store
        self._session: TodoSession | None = None

    def __call__(self, api: ExtensionApi) -> None:
        api.register_tool(TodoWriteTool())
        api.on("tool_result", self._tool_result)
        api.on("turn_end", self._turn_end)
        api.register_status("todos", self.status)

    def bind(self, session: TodoSession) -> None:
        """The session whose status events carry the list."""
        self._session = session
        store = self._store()
        todos = latest_todos(store.branch()) if store is not None else None
        session.todos = list(todos.items) if todos is not None else None

    def _write(self, todos: TodosCheckpoint) -> None:
        store = self._store()
        if store is None:
            return
        store.append(CheckpointEntry, todos)
        if self._session is not None:
            self._session.todos = list(todos.items)
            self._session.emit_status()

    def _turn_end(self, event: TurnEndEvent) -> None:
        """A plan the turn ended with (plan mode) becomes the list, unless a newer list is."""
        store = self._store()
        if store is None:
            return
        for entry in reversed(store.branch()):
            if not isinstance(entry, CheckpointEntry):
                continue
            if isinstance(entry.details, TodosCheckpoint):
                return
            if isinstance(entry.details, PlanCheckpoint):
                items = plan_items(entry.details)
                if items:
                    self._write(TodosCheckpoint(items=items, source="plan",
                                                source_entry_id=entry.id))  # fmt: skip
                return

    def status(self) -> str | None:
        """The list as one line: `[x] a; [~] b; [ ] c`, or none."""
        store = self._store()
        if store is None:
            return None
        todos = latest_todos(store.branch())
        if todos is None or not todos.items:
            return "none"
        return "; ".join(f"{MARKS[i.status]} {literal(i.content)}" for i in todos.items)

    def _tool_result(self, event: ToolResultEvent) -> None:
        store = self._store()
        if store is None or event.name != NAME or event.result.is_error:
            return
        raw = event.result.details.get("todos")
        listed = cast("list[object]", raw) if isinstance(raw, list) else []
        items = [TodoItem.model_validate(i) for i in listed]
        self._write(TodosCheckpoint(items=items, source_entry_id=event.entry_id))
