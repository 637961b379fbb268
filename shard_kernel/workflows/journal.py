"""A workflow run on disk: `run.json` (file, inputs, state; in the gateway also its agent, its
bounds, its jobs and the question it waits on) and `steps.jsonl`, one line per finished step
(its number, what it asked, its result), appended as each step ends."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from shard_core.engine.state import private_dir, write_private
from shard_core.types.errors import ConfigError

RunState = Literal["running", "completed", "failed", "cancelled"]


class PendingAsk(BaseModel):
    """A `wf.ask` waiting for a person: kept in `run.json`, so a restart asks it again."""

    request_id: str = Field(default_factory=lambda: f"wfask-{uuid.uuid4().hex[:12]}")
    n: int
    question: str
    choices: list[str]
    allow_other: bool = False
    multi: bool = False


class RunRecord(BaseModel):
    id: str = Field(default_factory=lambda: f"wf-{uuid.uuid4().hex[:12]}")
    file: str
    inputs: dict[str, str] = Field(default_factory=dict)
    state: RunState = "running"
    error: str | None = None
    result: str | None = None
    created: float = Field(default_factory=time.time)
    ended: float | None = None
    where: Literal["local", "gateway"] = "local"
    agent_id: str | None = None
    """gateway: the workflow's own agent, the parent its steps' agents are listed under"""
    started_by: str | None = None
    """gateway: the agent that started it (its rules bound the steps), if an agent did"""
    max_agents: int | None = None
    deadline: float | None = None
    jobs: list[str] = Field(default_factory=list)
    """gateway: the subagent job of each agent step, in launch order"""
    pending: PendingAsk | None = None
    answered: dict[str, str] = Field(default_factory=dict)
    """gateway: who answered each settled question (request id -> label)"""

    def summary(self) -> dict[str, object]:
        """The run without its inputs or result (for lists and events)."""
        return self.model_dump(mode="json", exclude={"inputs", "result", "answered"})


class StepRecord(BaseModel):
    n: int
    kind: Literal["agent", "log", "ask"]
    asked: str
    result: str
    decided_by: str | None = None
    """an ask: who answered"""


class Journal:
    def __init__(self, home: Path, run_id: str) -> None:
        self.folder = home / "jobs" / "workflows" / run_id

    @classmethod
    def create(cls, home: Path, record: RunRecord) -> Journal:
        journal = cls(home, record.id)
        private_dir(journal.folder)
        journal.save(record)
        return journal

    @classmethod
    def all(cls, home: Path) -> list[RunRecord]:
        root = home / "jobs" / "workflows"
        found = [cls(home, p.name).record() for p in sorted(root.glob("wf-*")) if p.is_dir()]
        return sorted(found, key=lambda r: r.created)

    def record(self) -> RunRecord:
        path = self.folder / "run.json"
        if not path.is_file():
            raise ConfigError(f"no workflow run {self.folder.name!r} (shard workflow list)")
        return RunRecord.model_validate_json(path.read_bytes())

    def save(self, record: RunRecord) -> None:
        write_private(self.folder / "run.json", record.model_dump_json(indent=1).encode())

    def steps(self) -> dict[int, StepRecord]:
        path = self.folder / "steps.jsonl"
        if not path.exists():
            return {}
        # the last line without its newline is a step still being written (or torn by a kill)
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        steps = [StepRecord.model_validate(json.loads(line)) for line in lines if line.strip()]
        return {s.n: s for s in steps}

    def add(self, step: StepRecord) -> None:
        with (self.folder / "steps.jsonl").open("a", encoding="utf-8") as f:
            f.write(step.model_dump_json() + "\n")

    def cancelled(self) -> bool:
        return self.record().state == "cancelled"

    def finish(self, state: RunState, **fields: Any) -> RunRecord:
        record = self.record().model_copy(update={"state": state, "ended": time.time(), **fields})
        self.save(record)
        return record
