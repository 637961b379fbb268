"""REST under `/shard/api/workflows`: list, run, get (with its steps), cancel, answer a question.

POST /shard/api/workflows        {"file": "/abs/fix.py", "inputs": {"k": "v"}, "cwd": ...,
                                  "model": ..., "permissions": {...} | "agent": "agent-…",
                                  "max_agents": 4, "deadline": 600}
POST /shard/api/workflows/<run>/answer   {"request_id": "wfask-…", "value": ["yes"],
                                          "label": "terminal"}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from jupyter_server.auth.decorator import authorized
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tornado import web

from shard_core.protocol.orchestrator import PermissionConfig
from shard_kernel.gateway.handlers import ShardAPIHandler
from shard_kernel.gateway.jobs.launch import LaunchError
from shard_kernel.gateway.jobs.workflows import WorkflowConflictError, WorkflowHost
from shard_kernel.gateway.validation import BadRequestError, parse_json_object
from shard_kernel.workflows import RunRecord

WORKFLOWS_KEY = "shard_workflows"
RUN = r"(?P<run_id>wf-[A-Za-z0-9_-]+)"
M = TypeVar("M", bound=BaseModel)


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str = Field(min_length=1, max_length=4096)
    inputs: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    model: str | None = Field(default=None, min_length=1)
    permissions: PermissionConfig | None = None
    agent: str | None = Field(default=None, min_length=1)
    """the agent starting it: its rules bound the run's agents"""
    max_agents: int | None = Field(default=None, ge=1, le=1000)
    deadline: float | None = Field(default=None, gt=0, le=7 * 86_400, allow_inf_nan=False)


class AnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str = Field(min_length=1)
    value: list[str] | str
    label: str = Field(default="a client", min_length=1, max_length=80)


class WorkflowsAPIHandler(ShardAPIHandler):
    @property
    def host(self) -> WorkflowHost:
        return self.settings[WORKFLOWS_KEY]

    def parsed(self, model: type[M]) -> M:
        try:
            return model.model_validate(parse_json_object(self.request.body))
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "request"
            raise web.HTTPError(400, "%s: %s", where, first["msg"]) from None

    def run_json(self, run_id: str) -> dict[str, Any]:
        try:
            journal = self.host.journal(run_id)
            record = journal.record()
        except Exception:
            raise web.HTTPError(404, "no workflow run %s in this gateway", run_id) from None
        steps = [s.model_dump(mode="json") for _, s in sorted(journal.steps().items())]
        return {**record.model_dump(mode="json"), "steps": steps}


class WorkflowsHandler(WorkflowsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        runs = sorted(self.host.runs(), key=lambda r: r.created, reverse=True)
        self.reply({"runs": [r.summary() for r in runs]})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        request = self.parsed(RunRequest)
        cwd = Path(request.cwd).expanduser() if request.cwd else None
        file = Path(request.file).expanduser()
        if not file.is_absolute():
            if cwd is None:
                raise web.HTTPError(400, "file: give an absolute path, or a cwd it is under")
            file = cwd / file
        try:
            record = self.host.launch(
                file.resolve(), request.inputs, starter=request.agent, cwd=cwd,
                model=request.model, permissions=request.permissions,
                max_agents=request.max_agents, deadline=request.deadline,
            )  # fmt: skip
        except LaunchError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        self.reply(_full(record), status=201)


class WorkflowHandler(WorkflowsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, run_id: str) -> None:
        self.reply(self.run_json(run_id))


class WorkflowCancelHandler(WorkflowsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        self.run_json(run_id)
        try:
            await self.host.cancel(run_id)
        except WorkflowConflictError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        self.reply(self.run_json(run_id))


class WorkflowAnswerHandler(WorkflowsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        self.run_json(run_id)
        request = self.parsed(AnswerRequest)
        values = [request.value] if isinstance(request.value, str) else request.value
        try:
            self.host.answer(run_id, request.request_id, values, request.label)
        except WorkflowConflictError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        except ValueError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        self.reply({"ok": True, "decided_by": request.label})


def _full(record: RunRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")


WORKFLOW_ROUTES: list[tuple[str, type[WorkflowsAPIHandler]]] = [
    (r"/shard/api/workflows", WorkflowsHandler),
    (rf"/shard/api/workflows/{RUN}", WorkflowHandler),
    (rf"/shard/api/workflows/{RUN}/cancel", WorkflowCancelHandler),
    (rf"/shard/api/workflows/{RUN}/answer", WorkflowAnswerHandler),
]
