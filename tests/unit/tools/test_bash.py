"""BashTool: output, exit codes, caps, timeouts, aborts, process groups and a clean environment.

These run under the sandbox when bubblewrap works here (the default), so process groups are
observed from the host (`host_group`): inside the sandbox `$$` is a pid in another namespace.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest

from shard_core.contracts import ToolContext
from shard_core.tools import BashTool
from shard_core.tools.bash import scrubbed_env
from shard_core.tools.process import CappedOutput
from shard_core.tools.sandbox import Sandbox, SandboxPolicy
from shard_core.types.render import KvDescriptor, KvPair, TextDescriptor
from tests.fixtures.processes import dies, group_alive, host_group, marked_sleep, process_alive
from tests.unit.tools.conftest import run

# Background jobs outliving the command is the unsandboxed behaviour (in the sandbox they end
# with it: tests/unit/tools/test_sandbox_processes.py).
UNSANDBOXED = Sandbox(SandboxPolicy(mode="off"))


async def test_output_and_exit_code(ctx: ToolContext) -> None:
    result = await run(BashTool(), ctx, command="echo hello")
    assert not result.is_error
    assert result.text == "hello\n\nexit code 0"
    assert result.render == [
        KvDescriptor(pairs=[KvPair(k="command", v="echo hello"), KvPair(k="exit code", v="0")]),
        TextDescriptor(text="hello", format="code"),
    ]
    assert result.details["exit_code"] == 0


async def test_failure_exit_is_reported_not_raised(ctx: ToolContext) -> None:
    result = await run(BashTool(), ctx, command="echo out; echo err >&2; exit 3")
    assert not result.is_error
    assert result.text == "out\nerr\n\nexit code 3"
    assert result.details["exit_code"] == 3


async def test_runs_in_cwd_with_empty_stdin(workspace: Path, ctx: ToolContext) -> None:
    result = await run(BashTool(), ctx, command="pwd; cat; echo done")
    assert result.text == f"{workspace}\ndone\n\nexit code 0"


async def test_signal_deaths_are_named(ctx: ToolContext) -> None:
    result = await run(BashTool(sandbox=UNSANDBOXED), ctx, command="kill -9 $$")
    assert result.text == "(no output)\n\nexit code -9 (killed by SIGKILL)"
    # In the sandbox bwrap reports the shell's death the way a shell would: 128+N.
    result = await run(BashTool(), ctx, command="kill -9 $$")
    expected = {
        "bwrap": "exit code 137 (128+9: killed by SIGKILL)",
        "unavailable": "exit code -9 (killed by SIGKILL)",
    }[str(result.details["sandbox"])]
    assert result.text == f"(no output)\n\n{expected}"


async def test_large_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    command = "head -c 50000 /dev/zero | tr '\\0' a; echo; printf end"
    result = await run(BashTool(), ctx, command=command)
    head, tail = result.text.split("\n[… 10004 bytes omitted …]\n")
    assert head == "a" * 20_000
    assert tail.endswith("a\nend\n\nexit code 0")
    assert result.details["truncated"] is True
    assert result.details["bytes"] == 50_004


async def test_timeout_kills_the_whole_group(ctx: ToolContext) -> None:
    started = time.monotonic()
    sleep = marked_sleep()
    command = f"echo started; {sleep} & sleep 30"
    task = asyncio.create_task(run(BashTool(), ctx, command=command, timeout=0.5))
    pgid = await host_group(sleep)
    result = await task
    assert time.monotonic() - started < 2
    assert result.is_error
    assert result.text == (
        "timed out after 0.5s; the process group was killed\n\noutput so far:\nstarted"
    )
    assert result.details["timed_out"] is True
    assert await dies(group_alive, pgid)


@pytest.mark.parametrize("sandbox", [None, UNSANDBOXED], ids=["default", "off"])
async def test_timeout_escalates_to_sigkill(ctx: ToolContext, sandbox: Sandbox | None) -> None:
    started = time.monotonic()
    sleep = marked_sleep()
    command = f"trap '' TERM; {sleep}"
    tool = BashTool(kill_grace=0.2, sandbox=sandbox)
    task = asyncio.create_task(run(tool, ctx, command=command, timeout=0.5))
    pgid = await host_group(sleep)
    result = await task
    assert time.monotonic() - started < 2
    assert result.details["timed_out"] is True
    assert await dies(group_alive, pgid)


async def test_abort_event_stops_the_group_at_once(ctx: ToolContext) -> None:
    sleep = marked_sleep()
    task = asyncio.create_task(run(BashTool(), ctx, command=f"{sleep} & sleep 30"))
    pgid = await host_group(sleep)
    started = time.monotonic()
    ctx.cancel.set()
    result = await task
    assert time.monotonic() - started < 1
    assert (result.is_error, result.text) == (True, "aborted")
    assert result.details["aborted"] is True
    assert await dies(group_alive, pgid)


async def test_an_already_aborted_call_runs_nothing(workspace: Path, ctx: ToolContext) -> None:
    ctx.cancel.set()
    result = await run(BashTool(), ctx, command="touch ran")
    assert (result.is_error, result.text) == (True, "aborted")
    assert not (workspace / "ran").exists()


async def test_task_cancellation_kills_the_group_and_propagates(ctx: ToolContext) -> None:
    sleep = marked_sleep()
    task = asyncio.create_task(run(BashTool(), ctx, command=f"{sleep} & sleep 30"))
    pgid = await host_group(sleep)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1
    assert await dies(group_alive, pgid)


async def test_background_jobs_holding_the_output_are_stopped(
    workspace: Path, ctx: ToolContext
) -> None:
    started = time.monotonic()
    result = await run(
        BashTool(sandbox=UNSANDBOXED), ctx, command="sleep 30 & echo $! > bg; echo hi"
    )
    assert time.monotonic() - started < 2
    assert result.text == (
        "hi\n[background processes still holding the output were stopped; "
        "redirect their output to keep them running]\n\nexit code 0"
    )
    assert result.details["background_stopped"] is True
    assert await dies(process_alive, int((workspace / "bg").read_text()))


async def test_redirected_background_jobs_keep_running(workspace: Path, ctx: ToolContext) -> None:
    result = await run(
        BashTool(sandbox=UNSANDBOXED), ctx, command="sleep 30 >/dev/null 2>&1 & echo $!"
    )
    pid = int(result.text.split("\n")[0])
    try:
        assert result.details["background_stopped"] is False
        assert process_alive(pid)
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_provider_secrets_are_not_visible(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "FOO_SECRET",
        "AWS_SECRET_ACCESS_KEY",
    ]
    for name in hidden:
        monkeypatch.setenv(name, "leak")
    monkeypatch.setenv("TZ", "kept")
    command = "echo " + "".join(f"[${name}]" for name in [*hidden, "TZ"])
    result = await run(BashTool(), ctx, command=command)
    assert result.text == "[][][][][][kept]\n\nexit code 0"


async def test_context_env_replaces_the_process_env(ctx: ToolContext) -> None:
    env = {"PATH": os.environ["PATH"], "TZ": "one", "X_TOKEN": "t"}
    result = await run(BashTool(), replace(ctx, env=env), command='echo "$TZ-$X_TOKEN-$HOME"')
    assert result.text == "one--\n\nexit code 0"


def test_scrub_rule() -> None:
    env = {
        "ANTHROPIC_API_KEY": "1",
        "my_api_key": "2",
        "NPM_TOKEN": "3",
        "PATH": "/bin",
        "TOKENS": "4",
    }
    assert scrubbed_env(env) == {"PATH": "/bin", "TOKENS": "4"}


def test_capped_output_keeps_both_ends() -> None:
    capped = CappedOutput(head=4, tail=3)
    for chunk in (b"abc", b"defgh", b"ij"):
        capped.add(chunk)
    assert capped.text() == "abcd\n[… 3 bytes omitted …]\nhij"
    small = CappedOutput(head=4, tail=3)
    small.add(b"abcdefg")
    assert (small.text(), small.omitted) == ("abcdefg", 0)
