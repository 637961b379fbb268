"""Processes in the sandbox: they end with the command, even ones that left its process group."""

from __future__ import annotations

import asyncio
import time

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import BashTool
from shard_core.tools.sandbox import Sandbox, probe_bwrap
from tests.fixtures.processes import dies, find_process, group_alive, host_group, marked_sleep
from tests.unit.tools.conftest import run

pytestmark = pytest.mark.skipif(
    probe_bwrap().bwrap is None, reason=f"bubblewrap cannot run here: {probe_bwrap().problem}"
)


def running(sleep: str) -> bool:
    return find_process(sleep) is not None


async def gone(sleep: str) -> bool:
    for _ in range(200):
        if not running(sleep):
            return True
        await asyncio.sleep(0.01)
    return False


async def test_background_jobs_end_with_the_command(ctx: ToolContext) -> None:
    sleep = marked_sleep()
    result = await run(BashTool(), ctx, command=f"{sleep} > /dev/null 2>&1 & echo started")
    assert (result.text, result.details["sandbox"]) == ("started\n\nexit code 0", "bwrap")
    assert await gone(sleep)


async def test_abort_ends_processes_that_left_the_group(ctx: ToolContext) -> None:
    # `setsid` takes a process out of the command's group, beyond killpg; the pid namespace
    # still ends it when the sandbox's first process dies.
    escaped, inside = marked_sleep(), marked_sleep()
    command = f"setsid {escaped} > /dev/null 2>&1 & {inside}"
    task = asyncio.create_task(run(BashTool(sandbox=Sandbox()), ctx, command=command))
    pgid = await host_group(inside)
    assert await host_group(escaped) != pgid
    started = time.monotonic()
    ctx.cancel.set()
    result = await task
    assert time.monotonic() - started < 1
    assert (result.is_error, result.text) == (True, "aborted")
    assert await dies(group_alive, pgid)
    assert await gone(escaped)
