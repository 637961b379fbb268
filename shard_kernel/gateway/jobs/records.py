"""JobRecord and RunRecord: what the gateway keeps about a subagent job, durable as JSON.

A job is one `subagent_launch` (single, parallel or chain) by one parent agent; it holds its
runs in order. A run is one delegated prompt to one child agent (`agent-…`, a friendly alias).
Task and report text are the parent's private data: they live only in these records.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shard_core.protocol.orchestrator import JobState

RunState = Literal["queued", "starting", "running", "completed", "failed", "stopped", "interrupted"]
Strategy = Literal["single", "parallel", "chain"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "stopped", "interrupted"})
REPORT_CHARS = 4000
"""The most of a child's final answer a report carries; the rest is a recall away."""


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


class RunRecord(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    id: str = Field(default_factory=lambda: new_id("run"))
    index: int
    task: str
    """the task as given (a chain step may hold `{previous}`)"""
    prompt: str | None = None
    """what was sent to the child, once it was"""
    agent_id: str
    alias: str
    state: RunState = "queued"
    reason: str | None = None
    turn_id: str | None = None
    report: str | None = None
    report_truncated: bool = False
    session_id: str | None = None
    entry_id: str | None = None
    """the child's final message entry: where a recall of the whole answer starts"""
    started: float | None = None
    ended: float | None = None

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL


class JobRecord(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    v: int = 1
    id: str = Field(default_factory=lambda: new_id("job"))
    parent_agent_id: str
    strategy: Strategy
    definition: str | None = None
    """the agent definition the children were built from, if any"""
    concurrency: int = 4
    deadline: float | None = None
    """seconds each run may take, start to end (None: no deadline)"""
    state: JobState = "queued"
    reason: str | None = None
    stopped_at: int | None = None
    """a chain that failed: the index of the step that ended it"""
    relaunch_of: str | None = None
    pool: list[str] = Field(default_factory=list)
    """the friendly-name pool pinned when the job was accepted"""
    runs: list[RunRecord] = Field(default_factory=list)
    created: float = Field(default_factory=time.time)
    ended: float | None = None
    delivered: bool = False
    """whether the parent has been handed the job's report"""
    backend: tuple[str, Any] | None = None
    """the definition's backend (kind, spec) pinned at launch; None: Shard kernels"""
    fork_session: str | None = None
    fork_entry: str | None = None
    """context fork: the parent's session and the entry its children start after"""

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    def run(self, run_id: str) -> RunRecord | None:
        return next((r for r in self.runs if r.id == run_id), None)

    def summary(self) -> dict[str, object]:
        """The job without its private texts (for lists and events)."""
        runs = [r.model_dump(include={"id", "index", "agent_id", "alias", "state", "reason"})
                for r in self.runs]  # fmt: skip
        data = self.model_dump(exclude={"runs", "pool"})
        data["runs"] = runs
        return data
