"""task_status, task_output, task_stop and `/tasks`: the controls over background bash tasks.

`tasks_extension` installs them through the ExtensionHost with `BackgroundTasks.close` as the
disposer, so shutting the agent down (a kernel's shutdown, `Agent.close`) ends every task.
"""

from __future__ import annotations

from shard_core.contracts import ExtensionApi, ToolContext
from shard_core.contracts.extension import CommandHandler, Disposer, Extension
from shard_core.tools.guard import guarded
from shard_core.tools.tasks import PAGE_BYTES, BackgroundTask, BackgroundTasks
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import KvDescriptor, KvPair, TextDescriptor

_ID: JsonObject = {"type": "string", "minLength": 1, "description": "The task id (task-…)."}


def _unknown(tasks: BackgroundTasks, task_id: str) -> ToolResult:
    known = ", ".join(t.id for t in tasks.all()) or "none"
    return ToolResult.error(f"no background task {task_id!r} (known: {known})", id=task_id)


def _facts(task: BackgroundTask) -> JsonObject:
    return {
        "id": task.id,
        "command": task.command,
        "state": task.state,
        "exit_code": task.exit_code,
        "reason": task.reason or None,
        "duration_s": round(task.duration(), 3),
        "output_bytes": task.size(),
        "log": str(task.log),
        "sandbox": task.sandbox,
    }


def _kv(task: BackgroundTask) -> KvDescriptor:
    pairs = [KvPair(k="task", v=task.id), KvPair(k="state", v=task.state)]
    if task.exit_code is not None:
        pairs.append(KvPair(k="exit code", v=str(task.exit_code)))
    pairs.append(KvPair(k="command", v=task.command))
    return KvDescriptor(pairs=pairs)


class TaskStatusTool:
    name: str = "task_status"
    description: str = (
        "The state of background tasks started with bash{background: true}: running, "
        "completed, failed, stopped or timed_out, with exit code, run time and output size. "
        "Without an id, every task of this agent."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"id": _ID},
        "additionalProperties": False,
    }
    read_only: bool = True

    def __init__(self, tasks: BackgroundTasks) -> None:
        self.tasks = tasks

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        task_id = input.get("id")
        if isinstance(task_id, str):
            task = self.tasks.get(task_id)
            if task is None:
                return _unknown(self.tasks, task_id)
            return ToolResult.ok(task.summary(), _kv(task), **_facts(task))
        every = self.tasks.all()
        text = "\n".join(t.summary() for t in every) or "no background tasks"
        return ToolResult.ok(text, tasks=[_facts(t) for t in every])


class TaskOutputTool:
    name: str = "task_output"
    description: str = (
        f"Output of a background task, at most {PAGE_BYTES // 1000} KB a call. Without "
        "`since`, its latest output; with `since` (a byte offset; the previous call's "
        "`next`), the output from there on, so nothing is read twice or missed."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "id": _ID,
            "since": {"type": "integer", "minimum": 0, "description": "Byte offset to read from."},
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    read_only: bool = True

    def __init__(self, tasks: BackgroundTasks) -> None:
        self.tasks = tasks

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        task = self.tasks.get(input["id"])
        if task is None:
            return _unknown(self.tasks, input["id"])
        since = input.get("since")
        page = self.tasks.read(task, since if isinstance(since, int) else None)
        where = f"bytes {page.start}-{page.next} of {page.size}"
        more = f"; more from since={page.next}" if page.more else ""
        head = f"[{task.summary()}; {where}{more}]"
        if page.start > 0 and since is None:
            head += " (earlier output from since=0)"
        body = page.text.rstrip("\n") or ("(no output yet)" if task.running else "(no output)")
        return ToolResult.ok(
            f"{head}\n{body}",
            _kv(task),
            TextDescriptor(text=page.text, format="code"),
            **_facts(task),
            start=page.start,
            next=page.next,
            more=page.more,
        )


class TaskStopTool:
    name: str = "task_stop"
    description: str = (
        "Stop a running background task: its whole process group gets SIGTERM, then SIGKILL "
        "after a short grace. Its output stays readable with task_output."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"id": _ID},
        "required": ["id"],
        "additionalProperties": False,
    }
    read_only: bool = False

    def __init__(self, tasks: BackgroundTasks) -> None:
        self.tasks = tasks

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        task = self.tasks.get(input["id"])
        if task is None:
            return _unknown(self.tasks, input["id"])
        if not task.running:
            return ToolResult.ok(f"already ended: {task.summary()}", _kv(task), **_facts(task))
        await self.tasks.stop(task.id)
        return ToolResult.ok(f"stopped: {task.summary()}", _kv(task), **_facts(task))


def tasks_table(tasks: BackgroundTasks) -> str:
    """`/tasks`: every background task of this agent as a markdown table."""
    every = tasks.all()
    if not every:
        return "No background tasks. `bash` with `background: true` starts one."
    rows = [
        "| task | state | exit | time | command | log |",
        "|---|---|---|---|---|---|",
    ]
    for t in every:
        code = "" if t.exit_code is None else str(t.exit_code)
        state = f"{t.state} ({t.reason})" if t.reason else t.state
        command = t.command.replace("|", "\\|").replace("\n", " ")
        rows.append(
            f"| `{t.id}` | {state} | {code} | {t.duration():.1f}s | `{command}` | {t.log} |"
        )
    return "\n".join(rows)


def tasks_extension(tasks: BackgroundTasks) -> Extension:
    """The three task tools and `/tasks`; the disposer stops every task still running."""

    def install(api: ExtensionApi) -> Disposer:
        for tool in (TaskStatusTool(tasks), TaskOutputTool(tasks), TaskStopTool(tasks)):
            api.register_tool(tool)
        api.register_command("tasks", "background tasks: state, exit code, log", _table(tasks))
        return tasks.close

    return install


def _table(tasks: BackgroundTasks) -> CommandHandler:
    def handler(_args: list[str]) -> str:
        return tasks_table(tasks)

    return handler
