"""Background bash tasks: they outlive the call and the turn, read back in pages, stop on
task_stop or shutdown (the whole process group), and a finished one tells the agent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import BashTool
from shard_core.tools.sandbox import Sandbox, SandboxPolicy
from shard_core.tools.task_tools import TaskOutputTool, TaskStatusTool, TaskStopTool, tasks_table
from shard_core.tools.tasks import BackgroundTasks
from tests.fixtures.processes import dies, find_process, group_alive, host_group, marked_sleep
from tests.unit.tools.conftest import run

UNSANDBOXED = Sandbox(SandboxPolicy(mode="off"))


@pytest.fixture
async def tasks(tmp_path: Path) -> AsyncIterator[BackgroundTasks]:
    registry = BackgroundTasks(tmp_path / "session.tasks", kill_grace=0.5)
    yield registry
    await registry.close()


async def finished(tasks: BackgroundTasks, task_id: str) -> None:
    task = tasks.get(task_id)
    assert task is not None
    while task.running:
        await asyncio.sleep(0.02)


async def test_a_background_command_returns_at_once_and_its_output_is_read_later(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    notes: list[str] = []
    tasks.notify = notes.append
    bash = BashTool(tasks=tasks)
    started = await run(bash, ctx, command="echo one; sleep 0.3; echo done", background=True)
    assert not started.is_error, started.text
    task_id = started.details["task_id"]
    assert isinstance(task_id, str)
    assert task_id.startswith("task-")
    assert started.details["background"] is True
    assert f"started background task {task_id}" in started.text
    task = tasks.get(task_id)
    assert task is not None
    assert task.running
    await finished(tasks, task_id)

    output = await run(TaskOutputTool(tasks), ctx, id=task_id)
    assert output.text.endswith("\none\ndone")
    assert (output.details["state"], output.details["exit_code"]) == ("completed", 0)
    status = await run(TaskStatusTool(tasks), ctx, id=task_id)
    assert status.text.startswith(f"{task_id} completed, exit code 0 after ")
    [note] = notes
    assert note.startswith(f"[background task {task_id} completed, exit code 0")
    assert note.endswith(f"last output:\none\ndone\n(all of it: task_output with id {task_id}; "
                         f"log {task.log})")  # fmt: skip
    assert task.log.parent == tasks.folder
    assert oct(task.log.stat().st_mode & 0o777) == "0o600"


async def test_a_failing_task_is_failed_with_its_exit_code(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    started = await run(
        BashTool(tasks=tasks), ctx, command="echo oops >&2; exit 4", background=True
    )
    await finished(tasks, started.details["task_id"])  # type: ignore[arg-type]
    status = await run(TaskStatusTool(tasks), ctx)
    assert status.details["tasks"][0]["state"] == "failed"  # type: ignore[index]
    assert status.details["tasks"][0]["exit_code"] == 4  # type: ignore[index]
    output = await run(TaskOutputTool(tasks), ctx, id=started.details["task_id"])
    assert output.text.endswith("\noops")


async def test_output_pages_join_exactly_even_inside_a_character(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    # 7000 three-byte characters (21000 bytes): the 20000-byte page ends inside one.
    command = "python3 -c \"print('€' * 7000, end='')\""
    started = await run(BashTool(tasks=tasks), ctx, command=command, background=True)
    task_id = started.details["task_id"]
    await finished(tasks, task_id)  # type: ignore[arg-type]
    tool = TaskOutputTool(tasks)
    first = await run(tool, ctx, id=task_id, since=0)
    assert first.details["more"] is True
    assert first.details["next"] == 19998
    second = await run(tool, ctx, id=task_id, since=first.details["next"])
    assert second.details["more"] is False
    joined = first.render[1].text + second.render[1].text  # type: ignore[union-attr]
    assert joined == "€" * 7000
    latest = await run(tool, ctx, id=task_id)
    assert latest.details["start"] == 1000
    assert "(earlier output from since=0)" in latest.text


async def test_task_stop_ends_the_whole_group_and_sends_no_note(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    notes: list[str] = []
    tasks.notify = notes.append
    sleep = marked_sleep()
    command = f"{sleep} & {sleep} & wait"
    started = await run(BashTool(tasks=tasks), ctx, command=command, background=True)
    pgid = await host_group(sleep)
    stopped = await run(TaskStopTool(tasks), ctx, id=started.details["task_id"])
    assert stopped.text.startswith("stopped: ")
    assert (stopped.details["state"], stopped.details["reason"]) == (
        "stopped",
        "stopped by task_stop",
    )
    assert await dies(group_alive, pgid)
    again = await run(TaskStopTool(tasks), ctx, id=started.details["task_id"])
    assert again.text.startswith("already ended: ")
    assert notes == []


async def test_close_stops_every_task_unsandboxed_too(tmp_path: Path, ctx: ToolContext) -> None:
    tasks = BackgroundTasks(tmp_path / "t", kill_grace=0.5)
    sleeps = [marked_sleep(), marked_sleep()]
    for bash, sleep in zip(
        (BashTool(tasks=tasks), BashTool(tasks=tasks, sandbox=UNSANDBOXED)), sleeps, strict=False
    ):
        await run(bash, ctx, command=f"echo start; {sleep}", background=True)
    groups = [await host_group(sleep) for sleep in sleeps]
    await tasks.close()
    for pgid in groups:
        assert await dies(group_alive, pgid)
    assert [t.state for t in tasks.all()] == ["stopped", "stopped"]
    assert all(t.reason == "the agent shut down" for t in tasks.all())
    refused = await run(BashTool(tasks=tasks), ctx, command="true", background=True)
    assert refused.is_error
    assert "shutting down" in refused.text


async def test_an_abort_of_the_call_never_reaches_a_started_task(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    sleep = marked_sleep()
    started = await run(BashTool(tasks=tasks), ctx, command=sleep, background=True)
    ctx.cancel.set()  # the turn is interrupted after the task started
    pgid = await host_group(sleep)
    await asyncio.sleep(0.1)
    assert group_alive(pgid)
    assert find_process(sleep) is not None
    task = tasks.get(started.details["task_id"])  # type: ignore[arg-type]
    assert task is not None
    assert task.running


async def test_a_background_deadline_times_the_task_out_and_says_so(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    notes: list[str] = []
    tasks.notify = notes.append
    sleep = marked_sleep()
    started = await run(BashTool(tasks=tasks), ctx, command=sleep, background=True, timeout=0.2)
    await finished(tasks, started.details["task_id"])  # type: ignore[arg-type]
    [note] = notes
    assert "timed_out (timed out after 0.2s)" in note


async def test_an_oversized_log_stops_the_task(tmp_path: Path, ctx: ToolContext) -> None:
    tasks = BackgroundTasks(tmp_path / "t", kill_grace=0.5, max_log_bytes=1_000_000)
    started = await run(BashTool(tasks=tasks), ctx, command="yes", background=True)
    await finished(tasks, started.details["task_id"])  # type: ignore[arg-type]
    [task] = tasks.all()
    assert (task.state, task.reason) == ("stopped", "its output passed 1,000,000 bytes")


async def test_too_many_running_tasks_are_refused(tmp_path: Path, ctx: ToolContext) -> None:
    tasks = BackgroundTasks(tmp_path / "t", kill_grace=0.5, max_running=1)
    try:
        bash = BashTool(tasks=tasks)
        await run(bash, ctx, command=marked_sleep(), background=True)
        refused = await run(bash, ctx, command="true", background=True)
        assert refused.is_error
        assert "1 background tasks are already running (the limit is 1)" in refused.text
    finally:
        await tasks.close()


async def test_bad_ids_and_a_missing_registry_are_clear_errors(
    tasks: BackgroundTasks, ctx: ToolContext
) -> None:
    for tool in (TaskStatusTool(tasks), TaskOutputTool(tasks), TaskStopTool(tasks)):
        result = await run(tool, ctx, id="task-nope")
        assert (result.is_error, result.text) == (
            True,
            "no background task 'task-nope' (known: none)",
        )
    bad = await run(TaskOutputTool(tasks), ctx, id="task-x", since=-1)
    assert bad.is_error
    assert "invalid task_output input" in bad.text
    alone = await run(BashTool(), ctx, command="true", background=True)
    assert alone.is_error
    assert alone.text.startswith("background tasks are not available in this agent")


async def test_the_tasks_table(tasks: BackgroundTasks, ctx: ToolContext) -> None:
    assert tasks_table(tasks).startswith("No background tasks.")
    started = await run(BashTool(tasks=tasks), ctx, command="echo a | cat", background=True)
    await finished(tasks, started.details["task_id"])  # type: ignore[arg-type]
    table = tasks_table(tasks)
    assert f"| `{started.details['task_id']}` | completed | 0 |" in table
    assert "`echo a \\| cat`" in table
