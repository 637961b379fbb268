"""The six subagent tools: launch, wait, steer, relaunch, status, stop — each its own tool.

They hold no job state: the gateway owns jobs (durable, surviving this agent's restarts), and
every call names this agent as the parent, so a tool only ever reaches its own children.
A failure (no gateway, an unknown alias, a stale steer) is a tool result the model reads.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from shard_core.capabilities.subagents.client import GatewayError, GatewayJobs
from shard_core.contracts import ToolContext
from shard_core.tools.guard import check_input
from shard_core.types import JsonObject, ToolResult
from shard_core.types.render import KvDescriptor, KvPair

WAIT_SLICE = 10.0
MAX_WAIT = 3600.0
_ID: JsonObject = {
    "type": "string",
    "minLength": 1,
    "description": "A job, run or subagent id, or a subagent's name (alias) such as Juniper.",
}
_IDS: JsonObject = {"type": "array", "items": _ID, "minItems": 1, "maxItems": 16}


def _runs(job: dict[str, Any]) -> str:
    return ", ".join(
        f"{r['alias']} ({r['agent_id']}, {r['id']}): {r['state']}" for r in job["runs"]
    )


def job_text(job: dict[str, Any], reports: bool = True) -> str:
    """A job as the model reads it: state, each run, and (when ended) each run's report."""
    lines = [f"job {job['id']} ({job['strategy']}) {job['state']}"]
    for run in job["runs"]:
        line = f"- {run['alias']} ({run['agent_id']}, {run['id']}): {run['state']}"
        if run.get("reason"):
            line += f" — {run['reason']}"
        lines.append(line)
        if reports and run.get("report"):
            more = (
                "\n  [… the answer goes on in its session]" if run.get("report_truncated") else ""
            )
            lines.append("  " + run["report"].replace("\n", "\n  ") + more)
    return "\n".join(lines)


def _kv(job: dict[str, Any]) -> KvDescriptor:
    pairs = [KvPair(k="job", v=job["id"]), KvPair(k="state", v=job["state"])]
    pairs += [KvPair(k=r["alias"], v=r["state"]) for r in job["runs"]]
    return KvDescriptor(pairs=pairs)


class _GatewayTool:
    input_schema: JsonObject
    name: str

    def __init__(self, jobs: GatewayJobs) -> None:
        self.jobs = jobs

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        problem = check_input(self.input_schema, input)
        if problem:
            return ToolResult.error(f"invalid {self.name} input: {problem}")
        try:
            return await self.call(input, ctx)
        except GatewayError as exc:
            return ToolResult.error(f"{self.name}: {exc}")
        except (KeyError, TypeError, ValueError) as exc:
            return ToolResult.error(f"{self.name}: unexpected answer from the gateway ({exc})")

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError


class SubagentLaunchTool(_GatewayTool):
    name: str = "subagent_launch"
    description: str = (
        "Start subagents: full agents in their own kernels, each with its own session and "
        "permissions (never more than yours). `single` runs `task`; `parallel` runs every "
        "`tasks` entry at once (a few at a time); `chain` runs them in order, `{previous}` in "
        "a step replaced by the previous step's answer. `agent` picks an agent definition. "
        "Returns at once with their names; their report comes to you when they finish."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "task": {"type": "string", "minLength": 1, "description": "The prompt (single)."},
            "tasks": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": 16,
                "description": "The prompts (parallel, chain).",
            },
            "strategy": {"enum": ["single", "parallel", "chain"]},
            "agent": {"type": "string", "minLength": 1, "description": "Agent definition name."},
            "deadline": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 86400,
                "description": "Seconds each run may take.",
            },
            "context": {
                "enum": ["fresh", "fork"],
                "description": "fresh (default): the child starts with only its task; fork: "
                "it starts from this conversation up to your last completed turn, so it knows "
                "what you know (not this turn).",
            },
        },
        "additionalProperties": False,
    }
    read_only: bool = False

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        strategy = input.get("strategy") or ("single" if "task" in input else "parallel")
        body = {"parent": ctx.agent_id, **input, "strategy": strategy}
        job = await self.jobs.launch(body)
        names = ", ".join(r["alias"] for r in job["runs"])
        text = (
            f"accepted job {job['id']} ({job['strategy']}): {_runs(job)}. {names} will report "
            "to you when done; subagent_wait blocks until then, subagent_status checks."
        )
        if job.get("fork_entry"):
            text += (
                f" Forked from your session {job['fork_session']} at entry "
                f"{job['fork_entry']} (your last completed turn)."
            )
        return ToolResult.ok(text, _kv(job), job=job)


class SubagentWaitTool(_GatewayTool):
    name: str = "subagent_wait"
    description: str = (
        "Wait until subagent jobs end (all of them, or any with all=false) or `timeout` "
        "seconds pass, then return their state and reports. A timeout stops the waiting, "
        "never the work."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {
            "ids": _IDS,
            "timeout": {"type": "number", "minimum": 0, "maximum": MAX_WAIT},
            "all": {"type": "boolean"},
        },
        "required": ["ids"],
        "additionalProperties": False,
    }
    read_only: bool = True

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        ids: list[str] = list(input["ids"])
        every = bool(input.get("all", True))
        deadline = time.monotonic() + float(input.get("timeout", 300))
        while True:  # short slices, so an aborted turn stops waiting promptly
            left = max(0.0, min(WAIT_SLICE, deadline - time.monotonic()))
            answer = await self.jobs.wait(ctx.agent_id, ids, left, every)
            if answer["done"] or time.monotonic() >= deadline or ctx.cancel.is_set():
                break
            await asyncio.sleep(0)
        jobs = answer["jobs"]
        head = "done" if answer["done"] else "still running (the wait timed out)"
        text = head + "\n\n" + "\n\n".join(job_text(j) for j in jobs)
        return ToolResult.ok(text, *(_kv(j) for j in jobs), done=answer["done"], jobs=jobs)


class SubagentSteerTool(_GatewayTool):
    name: str = "subagent_steer"
    description: str = (
        "Send a message into a running subagent's current turn. Name the run you mean: a "
        "steer for a run that has ended (or another run of that subagent) is rejected, with "
        "the reason, rather than delivered somewhere else."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"id": _ID, "text": {"type": "string", "minLength": 1}},
        "required": ["id", "text"],
        "additionalProperties": False,
    }
    read_only: bool = False

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        receipt = await self.jobs.control("steer", ctx.agent_id, input["id"], text=input["text"])
        text = f"steer {receipt['status']} ({receipt['alias']}, {receipt['run_id']})"
        if receipt.get("reason"):
            text += f": {receipt['reason']}"
        return ToolResult(
            content=ToolResult.ok(text).content,
            is_error=receipt["status"] == "rejected",
            details={"receipt": receipt},
        )


class SubagentRelaunchTool(_GatewayTool):
    name: str = "subagent_relaunch"
    description: str = (
        "Run a subagent again — same agent, session, permissions and name — with a new task "
        "(or its last one). Not while it still runs."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"id": _ID, "task": {"type": "string", "minLength": 1}},
        "required": ["id"],
        "additionalProperties": False,
    }
    read_only: bool = False

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        fields = {"task": input["task"]} if "task" in input else {}
        job = await self.jobs.control("relaunch", ctx.agent_id, input["id"], **fields)
        return ToolResult.ok(f"relaunched as job {job['id']}: {_runs(job)}", _kv(job), job=job)


class SubagentStatusTool(_GatewayTool):
    name: str = "subagent_status"
    description: str = (
        "The state of your subagent jobs and their reports. Without ids: your latest 50 jobs "
        "(how to find them again after a restart)."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"ids": _IDS},
        "additionalProperties": False,
    }
    read_only: bool = True

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        ids = input.get("ids")
        if isinstance(ids, list):
            targets = [str(i) for i in ids]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            jobs = [await self.jobs.get(ctx.agent_id, t) for t in targets]
            text = "\n\n".join(job_text(j) for j in jobs)
        else:
            jobs = (await self.jobs.list(ctx.agent_id))["jobs"]
            text = "\n".join(job_text(j, reports=False) for j in jobs) or "no subagent jobs yet"
        return ToolResult.ok(text, jobs=jobs)


class SubagentStopTool(_GatewayTool):
    name: str = "subagent_stop"
    description: str = (
        "Stop a subagent job: queued runs never start, running ones are aborted and their "
        "kernels stopped. Their sessions stay (subagent_relaunch can run them again)."
    )
    input_schema: JsonObject = {
        "type": "object",
        "properties": {"id": _ID},
        "required": ["id"],
        "additionalProperties": False,
    }
    read_only: bool = False

    async def call(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        job = await self.jobs.control("stop", ctx.agent_id, input["id"])
        return ToolResult.ok(job_text(job, reports=False), _kv(job), job=job)


TOOLS = (
    SubagentLaunchTool,
    SubagentWaitTool,
    SubagentSteerTool,
    SubagentRelaunchTool,
    SubagentStatusTool,
    SubagentStopTool,
)
