"""Hooks: what one no-op command hook on PreToolUse adds to a tool call, against no hook, same run.

Three agents (create_agent: the real gate, the hooks capability, the session log) each run turns
in which a function-driven model calls an in-memory read-only `noop` tool N times. A call's time
is from its `tool_call` event to its `tool_result` event. The agents: no hook; a PreToolUse hook
`true` (matcher `*`) in the command sandbox (bubblewrap, the default); the same hook with
`"sandbox": false`. Rounds alternate the three. Goal: the sandboxed hook adds <= 15 ms at p50.

Beside them, in the same rounds, the floors no Shard code is in: the hook's process alone
(`true` under bubblewrap with the layout a hook gets, planned once; `true` bare), spawned as the
runner spawns it. What the sandboxed hook adds over the bubblewrap floor is Shard's own.

    python bench/hooks.py [--quick] [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the engine and tests/fixtures live at the root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, percentile, table  # noqa: E402
from shard_core.capabilities.hooks.runner import command_argv  # noqa: E402
from shard_core.contracts import ExtensionApi, ToolContext  # noqa: E402
from shard_core.engine.config import ShardConfig  # noqa: E402
from shard_core.protocol.events import (  # noqa: E402
    Event,
    HookRunEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from shard_core.sdk import create_agent  # noqa: E402
from shard_core.tools.environment import tool_environment  # noqa: E402
from shard_core.tools.sandbox import Sandbox, probe_bwrap  # noqa: E402
from shard_core.types import JsonObject, ToolResult  # noqa: E402
from tests.fixtures.function_provider import FunctionProvider, Reply  # noqa: E402

KINDS = ("no hook", "hook, sandboxed", "hook, sandbox off")
FLOORS = ("process: bwrap true", "process: true")


class NoopTool:
    name = "noop"
    description = "Do nothing and say ok."
    input_schema: JsonObject = {"type": "object", "properties": {}}
    read_only = True

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("ok")


def hooks_for(kind: str) -> dict[str, object]:
    if kind == "no hook":
        return {}
    hook: dict[str, object] = {"type": "command", "command": "true"}
    if kind == "hook, sandbox off":
        hook["sandbox"] = False
    return {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}


async def call_times(work: Path, kind: str, calls: int) -> list[float]:
    """Seconds per tool call (tool_call to tool_result) over one turn of `calls` calls."""

    def reply(_request: Any, n: int) -> Reply:
        return {"tool_calls": [("noop", {})]} if n < calls else "done"

    provider = FunctionProvider(reply)

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)
        api.register_tool(NoopTool())

    agent = await create_agent(
        cwd=work, model="fn/bench", config=ShardConfig(hooks=hooks_for(kind)), env={},
        extensions=[("bench.hooks", install)], headless_policy="deny",
    )  # fmt: skip
    started: dict[str, float] = {}
    took: list[float] = []
    ran: list[HookRunEvent] = []

    def watch(event: Event) -> None:
        if isinstance(event, ToolCallEvent):
            started[event.call.id] = time.perf_counter()
        elif isinstance(event, ToolResultEvent) and event.tool_call_id in started:
            took.append(time.perf_counter() - started.pop(event.tool_call_id))
        elif isinstance(event, HookRunEvent):
            ran.append(event)

    agent.events.subscribe(watch)
    try:
        await agent.run("go")
    finally:
        await agent.close()
    expected = 0 if kind == "no hook" else calls
    sandboxed = kind == "hook, sandboxed" and probe_bwrap().bwrap is not None
    good = [r for r in ran if r.run.exit_code == 0 and r.run.sandboxed == sandboxed]
    if len(good) != expected or len(took) != calls:  # a bench of hooks that did not run is void
        raise SystemExit(f"{kind}: {len(good)} good hook runs of {len(ran)}, {len(took)} calls")
    return took


async def floor_times(work: Path, kind: str, calls: int) -> list[float]:
    """Seconds per spawn of the hook's process alone, as `runner._spawn` starts it."""
    env = await tool_environment(os.environ, work, agent_id="bench")
    argv = command_argv("true", env)
    if kind == "process: bwrap true":
        ctx = ToolContext(cwd=work, roots=[work], agent_id="bench", session_id="", call_id="")
        planned = await Sandbox().launch(argv, ctx, env)
        if isinstance(planned, str) or planned.sandbox != "bwrap":
            return []
        argv = planned.argv
    took: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=work, env=env, start_new_session=True,
        )  # fmt: skip
        await proc.communicate(b"{}")
        if proc.returncode != 0:
            raise SystemExit(f"{kind}: exit {proc.returncode}")
        took.append(time.perf_counter() - started)
    return took


async def measure(calls: int, rounds: int) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {k: [] for k in (*KINDS, *FLOORS)}
    saved = {name: os.environ.get(name) for name in ("SHARD_HOME", "XDG_CONFIG_HOME")}
    with tempfile.TemporaryDirectory(prefix="shard-bench-hooks-") as tmp:
        os.environ["SHARD_HOME"] = str(Path(tmp) / "home")
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "xdg")
        work = Path(tmp) / "work"
        work.mkdir()
        try:
            for _ in range(rounds):
                for kind in KINDS:
                    found[kind] += await call_times(work, kind, calls)
                for kind in FLOORS:
                    found[kind] += await floor_times(work, kind, calls)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return found


def rows(found: dict[str, list[float]]) -> list[list[str]]:
    base = percentile(found["no hook"], 50)
    out: list[list[str]] = []
    for kind in (*KINDS, *FLOORS):
        samples = found[kind]
        if not samples:
            continue
        p50, p99 = percentile(samples, 50), percentile(samples, 99)
        added = "" if kind in ("no hook", *FLOORS) else f"+{ms(p50 - base)}"
        out.append([kind, str(len(samples)), ms(p50), ms(p99), added])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke-sized run")
    parser.add_argument("--calls", type=int, default=50, help="tool calls per turn")
    parser.add_argument("--rounds", type=int, default=4, help="turns per agent kind")
    args = parser.parse_args()
    calls, rounds = (5, 1) if args.quick else (args.calls, args.rounds)
    print(machine())
    probe = probe_bwrap()
    print(f"bubblewrap: {probe.bwrap or 'unavailable: ' + probe.problem}")
    found = asyncio.run(measure(calls, rounds))
    headers = ["per tool call", "calls", "p50 ms", "p99 ms", "p50 added ms"]
    print(table(headers, rows(found)))


if __name__ == "__main__":
    main()
