"""BashTool: one shell command in its own process group, bounded in time and output."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Collection
from dataclasses import dataclass

from shard_core.contracts import ToolContext
from shard_core.contracts.access import ToolAccess
from shard_core.tools.environment import OWNER_VARIABLE, scrubbed_env, tool_environment
from shard_core.tools.guard import guarded
from shard_core.tools.process import (
    HEAD_BYTES,
    TAIL_BYTES,
    CappedOutput,
    Outcome,
    drained,
    pump_into,
    start_group,
    stop_group,
    wait_for_exit,
)
from shard_core.tools.sandbox import Launch, Sandbox
from shard_core.tools.shapes import BUILTIN_ACCESS
from shard_core.tools.tasks import BackgroundTasks
from shard_core.types import JsonObject, TextBlock, ToolResult
from shard_core.types.render import (
    KvDescriptor,
    KvPair,
    RenderDescriptor,
    StatusDescriptor,
    TextDescriptor,
)

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0

__all__ = ["OWNER_VARIABLE", "BashTool", "scrubbed_env"]  # the last two live in .environment

_LINGER_NOTE = (
    "\n[background processes still holding the output were stopped; "
    "redirect their output to keep them running]"
)


class BashTool:
    name: str = "bash"
    description: str = (
        "Run a command with /bin/bash -c in the agent's cwd; stdin is empty, stdout and stderr "
        f"are merged. Times out after `timeout` seconds (default {DEFAULT_TIMEOUT:g}, max "
        f"{MAX_TIMEOUT:g}) and then the whole process group is killed. Output over "
        f"{(HEAD_BYTES + TAIL_BYTES) // 1000} KB keeps its start and end. `background: true` "
        "returns a task id at once for servers and long builds (see task_output, task_stop); "
        "else `&` jobs end with the command. Sandboxed: the workspace (not git hooks/config, "
        ".shard, SHARD.md, …) and /tmp writable, HOME empty but for toolchains, no network "
        "unless allowed. Few variables pass; git runs no repository program."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The bash command."},
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": MAX_TIMEOUT,
                "description": f"Seconds until it is killed (default {DEFAULT_TIMEOUT:g}).",
            },
            "description": {"type": "string", "description": "What the command does, briefly."},
            "background": {
                "type": "boolean",
                "description": "Run as a background task; returns its id at once.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    read_only: bool = False
    kind: str = "execute"  # ToolKind: what an ACP host shows
    access: ToolAccess = BUILTIN_ACCESS["bash"]

    def __init__(
        self,
        *,
        kill_grace: float = 2.0,
        shell: str = "/bin/bash",
        env_passthrough: Collection[str] = (),
        sandbox: Sandbox | None = None,
        tasks: BackgroundTasks | None = None,
    ) -> None:
        self.kill_grace = kill_grace
        self.tasks = tasks
        self.shell = shell
        self.sandbox = sandbox or Sandbox()
        self.env_passthrough = frozenset(env_passthrough)

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        """The command, to be read before it runs."""
        command = input.get("command")
        if not isinstance(command, str) or not command:
            return []
        return [TextDescriptor(text=command, format="code", language="bash")]

    @guarded
    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        command: str = input["command"]
        timeout = float(input.get("timeout", DEFAULT_TIMEOUT))
        if ctx.cancel.is_set():
            return ToolResult.error("aborted", command=command, aborted=True)
        env = await tool_environment(
            os.environ if ctx.env is None else ctx.env,
            ctx.cwd,
            agent_id=ctx.agent_id,
            passthrough=self.env_passthrough,
        )
        launch = await self.sandbox.launch([self.shell, "-c", command], ctx, env)
        if isinstance(launch, str):
            return ToolResult.error(launch, command=command, sandbox="required")
        if input.get("background"):
            deadline = float(input["timeout"]) if "timeout" in input else None
            return await self._background(command, launch, ctx, env, deadline)
        started = time.monotonic()
        proc = await start_group(
            *launch.argv,
            cwd=ctx.cwd, env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        assert proc.stdout is not None
        output = CappedOutput()
        pump = asyncio.create_task(pump_into(proc.stdout, output))
        try:
            outcome, lingered = await self._supervise(proc, pump, ctx.cancel, timeout)
        except BaseException:
            # Task cancellation (or anything unexpected): no process may outlive the call.
            await stop_group(proc, pump, grace=0)
            raise
        took = time.monotonic() - started
        notes = await asyncio.to_thread(launch.settle)
        run = _Run(command, outcome, proc.returncode, output, took, timeout, lingered, notes)
        return run.result(launch.sandbox)

    async def _background(
        self,
        command: str,
        launch: Launch,
        ctx: ToolContext,
        env: dict[str, str],
        seconds: float | None,
    ) -> ToolResult:
        """Start the command as a task this agent process owns, and return at once."""
        if self.tasks is None:
            return ToolResult.error(
                "background tasks are not available in this agent; run it in the foreground",
                command=command,
            )
        task = await self.tasks.start(
            launch.argv, command=command, cwd=ctx.cwd, env=env,
            sandbox=launch.sandbox, seconds=seconds, settle=launch.settle,
        )  # fmt: skip
        if isinstance(task, str):
            return ToolResult.error(task, command=command)
        text = (
            f"started background task {task.id}; it keeps running after this turn. "
            f"Read its output with task_output{{id: {task.id}}}, stop it with task_stop. "
            "You will be told when it ends."
        )
        pairs = [KvPair(k="command", v=command), KvPair(k="background task", v=task.id)]
        return ToolResult.ok(
            text,
            KvDescriptor(pairs=pairs),
            command=command, task_id=task.id, background=True,
            log=str(task.log), sandbox=launch.sandbox,
        )  # fmt: skip

    async def _supervise(
        self,
        proc: asyncio.subprocess.Process,
        pump: asyncio.Task[None],
        cancel: asyncio.Event,
        limit: float,
    ) -> tuple[Outcome, bool]:
        """How the command ended, and whether background jobs had to be stopped after it."""
        outcome = await wait_for_exit(proc, cancel, limit)
        if outcome == "aborted":
            await stop_group(proc, pump, grace=0)
        elif outcome == "timeout":
            await stop_group(proc, pump, grace=self.kill_grace)
        elif not await drained(pump):
            await stop_group(proc, pump, grace=self.kill_grace)
            return outcome, True
        return outcome, False


@dataclass(frozen=True)
class _Run:
    command: str
    outcome: Outcome
    code: int | None
    output: CappedOutput
    took: float
    timeout: float
    lingered: bool
    notes: list[str]
    """what the sandbox moved away after the command (protected files it created)"""

    def result(self, sandbox: str) -> ToolResult:
        details: JsonObject = {
            "command": self.command,
            "exit_code": self.code if self.outcome == "exited" else None,
            "bytes": self.output.total,
            "truncated": self.output.omitted > 0,
            "omitted_bytes": self.output.omitted,
            "timed_out": self.outcome == "timeout",
            "aborted": self.outcome == "aborted",
            "background_stopped": self.lingered,
            "duration_s": round(self.took, 3),
            "sandbox": sandbox,
        }
        if self.notes:
            details["quarantined"] = list(self.notes)
        if self.outcome == "aborted":
            return ToolResult.error("aborted", **details)
        text = self.output.text().rstrip("\n")
        if self.outcome == "timeout":
            status = f"timed out after {self.timeout:g}s; the process group was killed"
            body = f"{status}\n\noutput so far:\n{text or '(none)'}"
        else:
            status = _exit_text(self.code)
            body = f"{text or '(no output)'}{_LINGER_NOTE if self.lingered else ''}\n\n{status}"
        body += "".join(f"\nshard: {note}" for note in self.notes)
        code = str(self.code) if self.outcome == "exited" else "none (timed out)"
        pairs = [KvPair(k="command", v=self.command), KvPair(k="exit code", v=code)]
        render: list[RenderDescriptor] = [
            KvDescriptor(pairs=pairs),
            TextDescriptor(text=text, format="code"),
        ]
        if self.outcome == "timeout":
            render.insert(0, StatusDescriptor(label=status, tone="error"))
        return ToolResult(
            content=[TextBlock(text=body)],
            is_error=self.outcome == "timeout",
            render=render,
            details=details,
        )


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        return f"exit code {code} (killed by {signal.Signals(-code).name})"
    if code is not None and code - 128 in _SIGNALS:
        # A shell (and bwrap) reports a command killed by signal N as 128+N.
        return f"exit code {code} (128+{code - 128}: killed by {_SIGNALS[code - 128]})"
    return f"exit code {code}"


_SIGNALS = {int(s): s.name for s in signal.Signals}
