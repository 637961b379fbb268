"""A finished job's report, and its delivery into the parent agent as a steer.

The report is bounded: each run's final answer up to REPORT_CHARS, with a pointer to the
child's session for the rest. A parent whose turn runs takes it at its next provider request;
an idle parent in its next turn (`queue`, for agents whose steer would otherwise be refused
while idle).
"""

from __future__ import annotations

import contextlib
from typing import Any

from shard_kernel.gateway.jobs.channel import AgentChannel, ChannelError
from shard_kernel.gateway.jobs.records import JobRecord

MAX_REPORT = 16_000


def report_text(job: JobRecord) -> str:
    """What the parent reads when the job ends."""
    runs = f"{len(job.runs)} run" + ("" if len(job.runs) == 1 else "s")
    head = f"[subagent job {job.id} ({job.strategy}, {runs}) {job.state}]"
    parts = [head]
    for run in job.runs:
        title = f"{run.alias} ({run.agent_id}, {run.id}): {run.state}"
        if run.reason:
            title += f" — {run.reason}"
        body = run.report or "(no answer)"
        if run.report_truncated:
            body += "\n[… the answer goes on]"
        where = f"session {run.session_id}" if run.session_id else "its session"
        entry = f", entry {run.entry_id}" if run.entry_id else ""
        pointer = (
            f"(all of it: agent {run.agent_id}, {where}{entry}; subagent_status{{ids: [{run.id}]}})"
        )
        parts.append(f"## {title}\n{body}\n{pointer}")
    text = "\n\n".join(parts)
    if len(text) > MAX_REPORT:
        text = text[: MAX_REPORT - 40] + "\n[… cut; subagent_status has the rest]"
    return text


async def deliver_report(kernel_manager: Any, kernel_id: str, job: JobRecord) -> bool:
    """Steer the report into the parent's kernel; whether the parent took it."""
    channel = AgentChannel(kernel_manager, kernel_id, f"coordinator · {job.id}")
    try:
        await channel.open()
        text = report_text(job)
        reply = await channel.command({"type": "steer", "text": text, "queue": True})
        if not reply.get("ok") and "queue" in str(reply.get("message")):
            reply = await channel.command({"type": "steer", "text": text})  # older agents
        return bool(reply.get("ok"))
    except (ChannelError, TimeoutError):
        return False
    finally:
        with contextlib.suppress(Exception):
            await channel.close()
