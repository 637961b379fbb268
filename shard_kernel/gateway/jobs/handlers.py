"""REST under `/shard/api/jobs`: list, launch, get, stop, steer, relaunch, wait.

The same authentication, authorization and origin checks as the agent routes (ShardAPIHandler).
A job target is a job, run or child id, or the alias of one of the parent's children; `parent`
(a query argument or body field) scopes it to that parent's jobs, as the subagent tools do.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from jupyter_server.auth.decorator import authorized
from tornado import web

from shard_kernel.gateway.handlers import ShardAPIHandler
from shard_kernel.gateway.jobs.coordinator import Coordinator, JobConflictError, JobNotFoundError
from shard_kernel.gateway.jobs.launch import LaunchError, parse_launch
from shard_kernel.gateway.jobs.records import JobRecord
from shard_kernel.gateway.validation import BadRequestError, parse_json_object

COORDINATOR_KEY = "shard_jobs"
TARGET = r"(?P<target>[^/]+)"
MAX_WAIT = 300.0
LIST_LIMIT = 50


class JobsAPIHandler(ShardAPIHandler):
    @property
    def coordinator(self) -> Coordinator:
        return self.settings[COORDINATOR_KEY]

    def body(self) -> dict[str, Any]:
        try:
            return parse_json_object(self.request.body)
        except BadRequestError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None

    def job_json(self, job: JobRecord, full: bool = True) -> dict[str, Any]:
        return job.model_dump(mode="json") if full else job.summary()

    def find(self, parent: str | None, target: str) -> JobRecord:
        try:
            job, _ = self.coordinator.resolve(parent, unquote(target))
        except JobNotFoundError:
            raise web.HTTPError(404, "no job, run or subagent %s", target[:80]) from None
        return job


class JobsHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        parent = self.get_query_argument("parent", None)
        jobs = [
            j
            for j in self.coordinator.catalog.jobs.values()
            if parent is None or j.parent_agent_id == parent
        ]
        jobs.sort(key=lambda j: j.created, reverse=True)
        self.reply({"jobs": [self.job_json(j, full=False) for j in jobs[:LIST_LIMIT]]})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            job = self.coordinator.launch(parse_launch(self.body()))
        except LaunchError as exc:
            raise web.HTTPError(400, "%s", str(exc)) from None
        self.reply(self.job_json(job), status=201)


class JobHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, target: str) -> None:
        self.reply(self.job_json(self.find(self.get_query_argument("parent", None), target)))


class JobStopHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, target: str) -> None:
        parent = self.body().get("parent") or self.get_query_argument("parent", None)
        self.find(parent, target)
        job = await self.coordinator.stop(parent, unquote(target))
        self.reply(self.job_json(job))


class JobSteerHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, target: str) -> None:
        body = self.body()
        parent, text = body.get("parent"), body.get("text")
        if not isinstance(parent, str) or not isinstance(text, str) or not text.strip():
            raise web.HTTPError(400, "give parent (an agent id) and text")
        if body.get("images"):  # a parent agent steers its child with words
            raise web.HTTPError(400, "a subagent's steer carries text only (no images)")
        self.find(parent, target)
        self.reply(await self.coordinator.steer(parent, unquote(target), text))


class JobRelaunchHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, target: str) -> None:
        body = self.body()
        parent, task = body.get("parent"), body.get("task")
        if not isinstance(parent, str) or (task is not None and not isinstance(task, str)):
            raise web.HTTPError(400, "give parent (an agent id) and, optionally, a new task")
        self.find(parent, target)
        try:
            job = self.coordinator.relaunch(parent, unquote(target), task or None)
        except JobConflictError as exc:
            raise web.HTTPError(409, "%s", str(exc)) from None
        self.reply(self.job_json(job), status=201)


class JobsWaitHandler(JobsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.body()
        parent, ids = body.get("parent"), body.get("ids")
        timeout, every = body.get("timeout", 60), body.get("all", True)
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise web.HTTPError(400, "ids: a list of job, run or subagent ids or aliases")
        if not isinstance(timeout, int | float) or not 0 <= timeout <= MAX_WAIT:
            raise web.HTTPError(400, "timeout: seconds, 0 to %d", int(MAX_WAIT))
        jobs = [self.find(parent if isinstance(parent, str) else None, t) for t in ids]
        done = await self.coordinator.wait(jobs, float(timeout), bool(every))
        self.reply({"done": done, "jobs": [self.job_json(j) for j in jobs]})


JOB_ROUTES: list[tuple[str, type[JobsAPIHandler]]] = [
    (r"/shard/api/jobs", JobsHandler),
    (r"/shard/api/jobs/wait", JobsWaitHandler),
    (rf"/shard/api/jobs/{TARGET}", JobHandler),
    (rf"/shard/api/jobs/{TARGET}/stop", JobStopHandler),
    (rf"/shard/api/jobs/{TARGET}/steer", JobSteerHandler),
    (rf"/shard/api/jobs/{TARGET}/relaunch", JobRelaunchHandler),
]
