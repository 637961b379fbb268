"""Running one command hook: JSON on stdin, a timeout, the secret-free environment bash gets,
inside the agent's command sandbox unless the hook says `"sandbox": false`.

A command with no shell syntax (`true`, `python3 .hooks/check.py --strict`) is run directly, as
`sh -c` would run it, without the shell's own start; anything else goes through `/bin/sh -c`.
A sandboxed hook may read its session's transcript (`transcript_path`) and nothing else of
SHARD_HOME.

The answer is read the way Claude Code reads it: exit 0 with JSON on stdout (`decision`,
`reason`, `hookSpecificOutput.permissionDecision`, `updatedInput`, `additionalContext`), exit 2
a block with stderr as the reason, any other exit (or a crash, a timeout, garbage) an error that
decides nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.hooks.config import HookCommand
from shard_core.contracts import ToolContext
from shard_core.engine.hook_points import HookPlace
from shard_core.tools.environment import tool_environment
from shard_core.tools.sandbox import Launch, Sandbox

MAX_OUTPUT = 64_000
PLAIN_WORDS = re.compile(r"[A-Za-z0-9_@%+,./:=-]+(?:[ \t]+[A-Za-z0-9_@%+,./:=-]+)*")
"""a command the shell would only split into words: no quotes, variables, globs, `~`,
redirections, pipes or separators"""
SHELL_BUILTINS = frozenset((
    ".", ":", "alias", "break", "cd", "command", "continue", "eval", "exec", "exit", "export",
    "getopts", "hash", "jobs", "local", "read", "readonly", "return", "set", "shift", "times",
    "trap", "type", "ulimit", "umask", "unalias", "unset", "wait",
))  # fmt: skip
"""what a shell does itself, or does differently from a program of that name"""


@dataclass
class HookRun:
    hook: HookCommand
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float
    timed_out: bool = False
    output: dict[str, Any] = field(default_factory=dict[str, Any])
    """stdout parsed as a JSON object on exit 0 (`{}` otherwise)"""
    sandboxed: bool = False
    place: HookPlace | None = None
    """where the run's event fired (set by the capability)"""
    tool: str | None = None
    tool_call_id: str | None = None

    @property
    def blocked(self) -> bool:
        return self.exit_code == 2 or self.output.get("decision") == "block"

    @property
    def specific(self) -> dict[str, Any]:
        found = self.output.get("hookSpecificOutput")
        return cast(dict[str, Any], found) if isinstance(found, dict) else {}

    @property
    def reason(self) -> str:
        if self.exit_code == 2:
            return self.stderr.strip() or f"hook {self.hook.command!r} exited 2"
        for value in (
            self.specific.get("permissionDecisionReason"),
            self.output.get("reason"),
        ):
            if isinstance(value, str) and value.strip():
                return value.strip()
        return ""

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code not in (0, 2)

    @property
    def halt(self) -> str | None:
        """`continue: false`: the turn ends, `stopReason` says why (for the user)."""
        if self.failed or self.output.get("continue") is not False:
            return None
        said = self.output.get("stopReason")
        if isinstance(said, str) and said.strip():
            return said.strip()
        return f"hook {self.hook.command!r} said continue: false"

    @property
    def system_message(self) -> str | None:
        said = self.output.get("systemMessage")
        return said.strip() if isinstance(said, str) and said.strip() else None

    def context(self, plain: bool = False) -> str | None:
        """`additionalContext`; with `plain`, exit 0's stdout when it is not JSON (Claude
        Code's UserPromptSubmit and SessionStart)."""
        said = self.specific.get("additionalContext")
        if isinstance(said, str) and said.strip():
            return said.strip()
        if plain and self.exit_code == 0 and not self.output and self.stdout.strip():
            return self.stdout.strip()
        return None


async def run_hook(
    hook: HookCommand,
    payload: dict[str, Any],
    cwd: Path,
    *,
    sandbox: Sandbox | None = None,
    agent_id: str = "hooks",
) -> HookRun:
    env = await tool_environment(os.environ, cwd, agent_id=agent_id)
    env["CLAUDE_PROJECT_DIR"] = env["SHARD_PROJECT_DIR"] = str(cwd)
    data = json.dumps(payload).encode("utf-8")
    started = time.monotonic()
    argv, sandboxed = command_argv(hook.command, env), False
    launch: Launch | None = None
    if sandbox is not None and hook.sandbox:
        ctx = ToolContext(cwd=cwd, roots=[cwd], agent_id=agent_id, session_id="", call_id="")
        transcript = payload.get("transcript_path")
        shown = [Path(transcript)] if isinstance(transcript, str) and transcript else []
        planned = await sandbox.launch(argv, ctx, env, shown=shown)
        if isinstance(planned, str):  # sandbox.mode "required" and none here: nothing runs
            return HookRun(hook, None, "", planned, _ms(started))
        launch, argv, sandboxed = planned, planned.argv, planned.sandbox == "bwrap"
    try:
        return await _spawn(hook, argv, cwd, env, data, started, sandboxed)
    finally:
        if launch is not None:  # what it planted where no mount could cover is moved away
            await asyncio.to_thread(launch.settle)


def command_argv(command: str, env: Mapping[str, str]) -> list[str]:
    """The argv to run `command` with: its words, when the shell would do nothing but split
    them and run a program named by an absolute path or found on PATH; else `/bin/sh -c`."""
    words = command.split()
    if PLAIN_WORDS.fullmatch(command.strip()) and _direct(words[0]):
        name = words[0]
        found = name if name.startswith("/") else shutil.which(name, path=env.get("PATH", ""))
        if found is not None and os.path.isabs(found) and os.access(found, os.X_OK):
            return [found, *words[1:]]
    return ["/bin/sh", "-c", command]


def _direct(name: str) -> bool:
    """Not an assignment, a builtin, or a path relative to the hook's cwd."""
    plain = "=" not in name and name not in SHELL_BUILTINS
    return plain and (name.startswith("/") or "/" not in name)


async def _spawn(
    hook: HookCommand,
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    data: bytes,
    started: float,
    sandboxed: bool,
) -> HookRun:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), hook.timeout)
    except TimeoutError:
        _kill(proc)
        with contextlib.suppress(Exception):
            await proc.wait()
        return HookRun(hook, None, "", "", _ms(started), timed_out=True, sandboxed=sandboxed)
    except asyncio.CancelledError:
        _kill(proc)
        raise
    run = HookRun(
        hook,
        proc.returncode,
        out[:MAX_OUTPUT].decode("utf-8", "replace"),
        err[:MAX_OUTPUT].decode("utf-8", "replace"),
        _ms(started),
        sandboxed=sandboxed,
    )
    if run.exit_code == 0 and run.stdout.strip().startswith("{"):
        with contextlib.suppress(ValueError):
            parsed = json.loads(run.stdout)
            if isinstance(parsed, dict):
                run.output = cast(dict[str, Any], parsed)
    return run


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 9)


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
