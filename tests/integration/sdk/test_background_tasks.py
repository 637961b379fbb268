"""Background tasks inside a real agent: a task outlives its turn and an aborted turn, its end
reaches the next request as a note, the next turn reads its output, `Agent.close` ends it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ProviderRequest, ToolResultEntry
from tests.fixtures.function_provider import FunctionProvider, Reply
from tests.fixtures.processes import dies, group_alive, host_group, marked_sleep


async def _agent(tmp_path: Path, provider: FunctionProvider, *allow: str) -> Agent:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    return await create_agent(
        cwd=work,
        model="fn/test",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={},
        allow=allow,
        extensions=[("test.provider", install)],
    )


def _texts(request: ProviderRequest) -> str:
    return "\n".join(str(m.model_dump()) for m in request.messages)


def _task_id(request: ProviderRequest) -> str:
    found = re.search(r"task-[0-9a-f]{8}", _texts(request))
    assert found, "no task id in the conversation"
    return found.group(0)


async def test_the_next_turn_reads_a_finished_background_task(tmp_path: Path) -> None:
    def fn(request: ProviderRequest, n: int) -> Reply:
        if n == 0:
            command = "sleep 5; echo done"
            return {"tool_calls": [("bash", {"command": command, "background": True})]}
        if n == 1:
            return "It runs in the background."
        if n == 2:
            return {"tool_calls": [("task_output", {"id": _task_id(request)})]}
        return "The task printed done."

    provider = FunctionProvider(fn)
    agent = await _agent(tmp_path, provider, "Bash(sleep:*)", "Bash(echo:*)")
    try:
        first = await agent.run("start the slow job")
        assert first.reason == "completed"
        [task] = agent.host.snapshot.tools.get("task_status").tasks.all()  # type: ignore[union-attr]
        assert task.running  # the turn ended; the task did not
        while task.running:
            await asyncio.sleep(0.05)
        second = await agent.run("is it done?")
        assert second.reason == "completed"
        results = [e for e in agent.session.store.branch() if isinstance(e, ToolResultEntry)]
    finally:
        await agent.close()
    # The next request carried the note, after the new prompt.
    next_request = _texts(provider.requests[2])
    assert f"[background task {task.id} completed, exit code 0 after" in next_request
    assert next_request.index("is it done?") < next_request.index("[background task")
    assert results[-1].details.result.text.endswith("\ndone")
    assert task.log.read_text() == "done\n"
    assert task.log.parent == agent.session.store.path.with_suffix(".tasks")


async def test_an_aborted_turn_leaves_the_task_and_close_ends_it(tmp_path: Path) -> None:
    background, foreground = marked_sleep(), marked_sleep()

    def fn(request: ProviderRequest, n: int) -> Reply:
        if n == 0:
            return {"tool_calls": [("bash", {"command": background, "background": True})]}
        if n == 1:
            return {"tool_calls": [("bash", {"command": foreground})]}
        return "never"

    agent = await _agent(tmp_path, FunctionProvider(fn), "Bash(sleep:*)")
    try:
        turn = asyncio.create_task(agent.run("go"))
        await host_group(foreground)
        task_group = await host_group(background)
        assert agent.abort()
        end = await turn
        assert end.reason == "aborted"
        await asyncio.sleep(0.2)
        assert group_alive(task_group)
        command = agent.host.command("tasks")
        assert command is not None
        assert command.extension == "shard.tasks"
        assert "| running |" in str(command.handler([]))
    finally:
        await agent.close()
    assert await dies(group_alive, task_group)
