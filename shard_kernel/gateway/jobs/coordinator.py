"""Coordinator: accepts subagent jobs, drives their runs on child kernels, reports to parents.

A launch is checked whole, then its ids, aliases and child manifests are written before it is
acknowledged; the runs start afterwards, on their own tasks. Each child is an ordinary `shard`
kernel the registry starts through the server's kernel manager; the coordinator talks to it as
an observer (channel.py), prompts it, follows its events to the turn's end, keeps a bounded
report and stops its kernel (the agent, its session and its manifest stay). A finished job's
report goes to its parent as a steer (a running turn takes it at its next request, an idle
one in its next turn), as soon as the parent's kernel runs.

A definition that names a backend (`backend: {acp: [...]}`) is run by the backend registered
under that kind instead of a kernel (backends.py; `acp` is bundled): the same records, reports,
stop and deadline, the backend keeping the child in its manifest's bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from shard_core.engine.agent_definitions import AgentDefinition, load_agent_definitions
from shard_core.engine.config import ShardConfig, load_config
from shard_core.engine.state import config_dir
from shard_core.types.errors import ConfigError
from shard_kernel.gateway.jobs import aliases
from shard_kernel.gateway.jobs.backends import ChildBackend, ChildRun, ChildTurn
from shard_kernel.gateway.jobs.catalog import JobCatalog
from shard_kernel.gateway.jobs.channel import AgentChannel, ChannelError
from shard_kernel.gateway.jobs.fork import fork_point, start_from
from shard_kernel.gateway.jobs.launch import PREVIOUS, LaunchError, LaunchRequest, child_manifest
from shard_kernel.gateway.jobs.records import REPORT_CHARS, JobRecord, RunRecord, new_id
from shard_kernel.gateway.jobs.relay import nearest_person, relay_ask
from shard_kernel.gateway.jobs.reports import deliver_report
from shard_kernel.gateway.manifest import AgentManifest
from shard_kernel.gateway.registry import AgentRegistry

STOPPED = "stopped by subagent_stop"
STOP_EVENT = "coordinator_stop"
STEER_RECEIPT_SECONDS = 2.0
"""How long a steer waits for the child's own receipt before answering `accepted`."""
CLOSE_SECONDS = 10.0
MAX_DEPTH = 2
"""A child may launch children of its own; their children may not."""


class JobNotFoundError(KeyError):
    """No job, run, child id or alias of this parent by that name (404)."""


class JobConflictError(RuntimeError):
    """The job or agent is busy (409), e.g. a relaunch of a child that is still running."""


class Coordinator:
    def __init__(
        self,
        registry: AgentRegistry,
        catalog: JobCatalog,
        home: Path,
        log: logging.Logger,
        config: ShardConfig | None = None,
        *,
        trust_project: bool = False,
    ) -> None:
        self.registry = registry
        self.catalog = catalog
        self.home = home
        self.log = log
        self._config = config
        self.trust_project = trust_project
        """the server's kernels read project files (`ShardGateway.trust_project`)"""
        self._channels: dict[str, AgentChannel] = {}  # run id → its child's channel
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping: set[str] = set()
        self._closing = False
        """the server is stopping: what its children do now is not saved (see `close`)"""
        self._changed = asyncio.Event()
        self.on_change: Callable[[JobRecord], None] | None = None
        """Told of every saved change of a job's summary (the orchestrator events)."""
        self._told: dict[str, dict[str, object]] = {}
        self.backends: dict[str, ChildBackend] = {}
        """who runs a child whose definition names a backend, by kind (`register_backend`)"""
        self._runners: dict[str, ChildRun] = {}  # run id → the backend running it
        self.workflows: Any = None
        """the gateway's WorkflowHost (its runs' steps are this coordinator's jobs)"""
        self.on_close: Callable[[], Awaitable[None]] | None = None
        """Awaited first at `close` (the workflow host lets go of its runs before the jobs)."""

    def register_backend(self, kind: str, backend: ChildBackend) -> None:
        """Run the children of definitions that say `backend: {kind: spec}` with `backend`."""
        self.backends[kind] = backend

    # ------------------------------------------------------------ lifecycle

    def load(self) -> list[JobRecord]:
        """Read the catalog; the jobs a restart cut short become interrupted (returned)."""
        return self.catalog.load()

    def start(self) -> None:
        """Begin delivering the reports parents have not had yet (on the running loop)."""
        self._spawn(self._deliver_pending())

    async def close(self) -> None:
        """Let go of every child at server stop (`ShardGateway.stop_extension`, before the
        server shuts its kernels down; runs stay `running` on disk: the next start
        reads them as interrupted). From here on nothing is saved: a child whose turn the
        stopping server aborts would otherwise be recorded `stopped` and its job `failed`, and
        could not be relaunched as interrupted."""
        if self.on_close is not None:
            await self.on_close()
        self._closing = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), CLOSE_SECONDS)
        for channel in list(self._channels.values()):
            await channel.close()

    # ------------------------------------------------------------ launch

    def launch(self, request: LaunchRequest, place: dict[str, str] | None = None) -> JobRecord:
        """Accept a job: validate everything, allocate ids and aliases, persist, then start.
        `place`: a workflow step's own `cwd` and `model` for its children (never rules)."""
        parent = self._parent(request.parent)
        definition = self._definition(parent, request.agent)
        self._check_backend(definition)
        config = self._config or load_config()
        pool = aliases.pool(definition.names if definition else (), config.subagents.names)
        taken = self._aliases(parent.id)
        fork = self._fork_point(request, parent, definition)
        job = JobRecord(
            parent_agent_id=parent.id,
            fork_session=fork[0] if fork else None,
            fork_entry=fork[1] if fork else None,
            strategy=request.strategy,
            definition=definition.name if definition else None,
            concurrency=request.concurrency or config.subagents.concurrency,
            deadline=request.deadline,
            pool=pool,
            backend=definition.backend if definition else None,
        )
        now = time.time()
        for index, task in enumerate(request.all_tasks()):
            alias = aliases.allocate(pool, taken)
            taken.append(alias)
            agent_id = new_id("agent")
            self._save_child(parent, definition, agent_id, alias, now, place)
            if fork is not None:
                start_from(self.home, agent_id, parent.cwd, fork)
            job.runs.append(RunRecord(index=index, task=task, agent_id=agent_id, alias=alias))
        self._save(job)
        self._spawn(self._drive(job))
        return job

    def relaunch(self, parent_id: str, target: str, task: str | None) -> JobRecord:
        """A new job for an existing child: same agent, session, alias; new job and run ids."""
        old_job, old_run = self.resolve(parent_id, target)
        if self._active_run(old_run.agent_id) is not None:
            raise JobConflictError(f"{old_run.alias} is still running; stop it or wait")
        job = JobRecord(
            parent_agent_id=parent_id,
            strategy="single",
            definition=old_job.definition,
            concurrency=1,
            deadline=old_job.deadline,
            pool=old_job.pool,
            relaunch_of=old_job.id,
            backend=old_job.backend,
        )
        text = task or old_run.prompt or old_run.task
        if PREVIOUS in text and task is None:
            text = old_run.prompt or text
        job.runs.append(
            RunRecord(index=0, task=text, agent_id=old_run.agent_id, alias=old_run.alias)
        )
        self._save(job)
        self._spawn(self._drive(job))
        return job

    def _parent(self, parent_id: str) -> AgentManifest:
        parent = self.registry.manifests.get(parent_id)
        if parent is None:
            raise LaunchError(
                f"agent {parent_id} is not one the gateway manages; subagents need a parent "
                "started by the gateway (the Lab panel, %shard new, POST /shard/api/agents)"
            )
        depth, node = 0, parent
        while node.parent_agent_id is not None and depth <= MAX_DEPTH:
            depth += 1
            node = self.registry.manifests.get(node.parent_agent_id) or node.model_copy(
                update={"parent_agent_id": None}
            )
        if depth >= MAX_DEPTH:
            raise LaunchError(f"subagents may nest {MAX_DEPTH} deep; {parent_id} is at that depth")
        return parent

    def _definition(self, parent: AgentManifest, name: str | None) -> AgentDefinition | None:
        if name is None:
            return None
        # Project definitions only where the server's kernels trust projects (as for create).
        found = load_agent_definitions(
            parent.cwd, home=self.home, config=config_dir(), trusted=self.trust_project
        )
        try:
            return found.require(name)
        except ConfigError as exc:
            raise LaunchError(str(exc)) from None

    def _check_backend(self, definition: AgentDefinition | None) -> None:
        if definition is None or definition.backend is None:
            return
        kind, spec = definition.backend
        backend = self.backends.get(kind)
        if backend is None:
            known = ", ".join(sorted(self.backends)) or "none"
            raise LaunchError(
                f"agent definition {definition.name} names backend {kind!r}, which this "
                f"gateway does not have (known: {known})"
            )
        problem = backend.check(spec)
        if problem is not None:
            raise LaunchError(f"agent definition {definition.name}: {problem}")

    def _fork_point(
        self, request: LaunchRequest, parent: AgentManifest, definition: AgentDefinition | None
    ) -> tuple[str, str] | None:
        if request.context != "fork":
            return None
        if definition is not None and definition.backend is not None:
            raise LaunchError(
                f"context: fork needs a Shard child; {definition.name} runs on a "
                f"{definition.backend[0]} backend, which cannot start from a Shard session"
            )
        return fork_point(self.home, self._session_of(parent.id))

    def _aliases(self, parent_id: str) -> list[str]:
        return [
            m.alias
            for m in self.registry.manifests.values()
            if m.parent_agent_id == parent_id and m.alias
        ]

    def _save_child(
        self,
        parent: AgentManifest,
        definition: AgentDefinition | None,
        agent_id: str,
        alias: str,
        now: float,
        place: dict[str, str] | None = None,
    ) -> None:
        taken = {m.name.casefold() for m in self.registry.manifests.values()}
        name = f"{aliases.display(definition.name if definition else None, alias)} ({parent.name})"
        if name.casefold() in taken:
            name = f"{name} {agent_id[-4:]}"
        manifest = child_manifest(parent, definition, agent_id=agent_id, name=name, created=now)
        update = {"parent_agent_id": parent.id, "alias": alias, **(place or {})}
        manifest = manifest.model_copy(update=update)
        self.registry.store.save(manifest)
        self.registry.manifests[agent_id] = manifest

    # ------------------------------------------------------------ driving

    async def _drive(self, job: JobRecord) -> None:
        job.state = "running"
        self._save(job)
        if job.strategy == "chain":
            await self._chain(job)
        else:
            gate = asyncio.Semaphore(job.concurrency)

            async def one(run: RunRecord) -> None:
                async with gate:
                    await self._run(job, run, run.task)

            await asyncio.gather(*(one(r) for r in job.runs), return_exceptions=True)
        self._settle(job)
        self._spawn(self._deliver(job))

    async def _chain(self, job: JobRecord) -> None:
        previous = ""
        for run in job.runs:
            if job.id in self._stopping:
                break
            prompt = run.task.replace(PREVIOUS, previous) if run.index > 0 else run.task
            await self._run(job, run, prompt)
            if run.state != "completed":
                job.stopped_at = run.index
                break
            previous = run.report or ""
        for run in job.runs:
            if run.state == "queued":
                run.state, run.reason = "stopped", _chain_reason(job)
        self._save(job)

    async def _run(self, job: JobRecord, run: RunRecord, prompt: str) -> None:
        if job.id in self._stopping or run.terminal:
            run.state = "stopped" if not run.terminal else run.state
            self._save(job)
            return
        run.prompt, run.state, run.started = prompt, "starting", time.time()
        self._save(job)
        if job.backend is not None:
            await self._run_backend(job, run, prompt)
            return
        channel: AgentChannel | None = None
        try:
            async with asyncio.timeout(job.deadline):
                kernel_id = await self.registry.attach(run.agent_id)
                # With a person up the child's line its asks wait for them (relay.py).
                person = await nearest_person(self.registry, job.parent_agent_id, self._own)
                role = "interactive" if person is not None else "observer"
                label = f"coordinator · {job.id}"
                channel = AgentChannel(self.registry.km, kernel_id, label, role)
                await channel.open()
                self._channels[run.id] = channel
                await self._turn(job, run, channel, prompt)
        except TimeoutError:
            _end(run, "failed", f"the deadline of {job.deadline:g}s passed")
        except ChannelError as exc:
            _end(run, "failed", str(exc))
        except Exception as exc:  # a kernel that would not start, a dead connection
            # with the traceback: an unexpected failure (a bare AssertionError from a library,
            # seen once under load) says nothing of where it came from without it
            self.log.warning("shard: run %s failed: %r", run.id, exc, exc_info=exc)
            _end(run, "failed", f"{type(exc).__name__}: {exc}")
        finally:
            self._channels.pop(run.id, None)
            run.session_id = self._session_of(run.agent_id)
            self._save(job)
            if channel is not None:
                await channel.close()
            with contextlib.suppress(Exception):
                await self.registry.kill(run.agent_id)  # the agent and its session stay

    async def _run_backend(self, job: JobRecord, run: RunRecord, prompt: str) -> None:
        """A run its definition's backend drives (checked at launch; looked up again here, so
        a backend gone since a restart fails the run with the reason)."""
        assert job.backend is not None
        kind, spec = job.backend
        backend = self.backends.get(kind)
        manifest = self.registry.manifests.get(run.agent_id)
        problem = "its manifest is gone" if manifest is None else None
        if backend is None:
            problem = f"this gateway has no backend {kind!r}"
        elif problem is None:
            problem = backend.check(spec)
        if problem is not None or backend is None or manifest is None:
            _end(run, "failed", problem)
            self._save(job)
            return
        turn = ChildTurn(
            manifest=manifest, spec=spec, prompt=prompt, note=_note(job, run), home=self.home,
            log=self.log,
        )  # fmt: skip
        runner = backend.start(turn)
        self._runners[run.id] = runner
        run.state, run.turn_id = "running", f"{kind}-{run.id}"
        self._save(job)
        try:
            async with asyncio.timeout(job.deadline):
                outcome = await runner.run()
            run.report_truncated = len(outcome.report) > REPORT_CHARS
            run.report = outcome.report[:REPORT_CHARS]
            run.session_id, run.entry_id = outcome.session_id, outcome.entry_id
            _end(run, outcome.state, outcome.reason)
        except TimeoutError:
            _end(run, "failed", f"the deadline of {job.deadline:g}s passed")
        except Exception as exc:  # a backend's own failure is the run's, never the gateway's
            self.log.warning("shard: run %s (%s backend) failed: %r", run.id, kind, exc)
            _end(run, "failed", f"{type(exc).__name__}: {exc}")
        finally:
            self._runners.pop(run.id, None)
            run.session_id = run.session_id or self._session_of(run.agent_id)
            self._save(job)

    async def _turn(
        self, job: JobRecord, run: RunRecord, channel: AgentChannel, prompt: str
    ) -> None:
        """Prompt the child and follow its events to the end of that turn."""
        if job.id in self._stopping:
            _end(run, "stopped", STOPPED)
            return
        # The child's session names its parent, job and run before the task (best effort:
        # an agent without `inject` still runs the task).
        note = _note(job, run)
        with contextlib.suppress(TimeoutError, ChannelError):
            await channel.command({"type": "inject", "text": note, "label": "subagent"})
        reply = await channel.command({"type": "prompt", "text": prompt})
        if not reply.get("ok"):
            _end(run, "failed", f"the child refused the prompt: {reply.get('message')}")
            return
        text = ""
        async for event in channel.events():
            kind = event.get("type")
            if kind == STOP_EVENT:
                _end(run, "stopped", STOPPED)
                return
            if kind == "permission_request" and channel.role == "interactive":
                self._relay(job, run, channel, event)
                continue
            if kind == "turn_start" and run.turn_id is None and event.get("prompt") == prompt:
                # Running from the child's turn start: a steer before it has no turn to enter.
                run.turn_id, run.state = str(event.get("turn_id")), "running"
                self._save(job)
            elif event.get("turn_id") != run.turn_id or run.turn_id is None:
                continue
            elif kind == "message_complete":
                text = _text(event.get("message") or {}) or text
                run.entry_id = str(event.get("entry_id") or run.entry_id)
            elif kind == "turn_end":
                reason = str(event.get("reason"))
                run.report_truncated = len(text) > REPORT_CHARS
                run.report = text[:REPORT_CHARS]
                if reason == "completed":
                    _end(run, "completed", None)
                elif reason == "aborted":
                    _end(run, "stopped", "the child's turn was aborted")
                else:
                    _end(run, "failed", str(event.get("error") or f"the turn ended: {reason}"))
                return

    def _relay(
        self, job: JobRecord, run: RunRecord, channel: AgentChannel, request: dict[str, Any]
    ) -> None:
        self._spawn(self._relay_up(job, run, channel, request))

    async def _relay_up(
        self, job: JobRecord, run: RunRecord, channel: AgentChannel, request: dict[str, Any]
    ) -> None:
        """The ask to the nearest person up the line, looked for again now (people come and
        go); nobody there: the child's own timeout falls back to its headless policy."""
        target = await nearest_person(self.registry, job.parent_agent_id, self._own)
        if target is None:
            return
        parent = self.registry.manifests.get(job.parent_agent_id)
        via = parent.name if parent is not None and parent.id != target.id else None
        await relay_ask(self.registry, target, run.alias, channel, request, self.log, via)

    def _own(self, kernel_id: str) -> int:
        """The interactive channels the coordinator itself holds on a kernel (no person)."""
        return sum(
            1
            for c in self._channels.values()
            if c.kernel_id == kernel_id and c.role == "interactive"
        )

    def _settle(self, job: JobRecord) -> None:
        states = {r.state for r in job.runs}
        if job.id in self._stopping:
            job.state = "stopped"
        elif states <= {"completed"}:
            job.state = "completed"
        elif "interrupted" in states:
            job.state = "interrupted"
        else:
            job.state = "failed"
        job.ended = time.time()
        self._stopping.discard(job.id)
        self._save(job)

    # ------------------------------------------------------------ controls

    async def stop(self, parent_id: str | None, target: str) -> JobRecord:
        job, _ = self.resolve(parent_id, target)
        if job.terminal:
            return job
        self._stopping.add(job.id)
        for run in job.runs:
            if run.state == "queued":
                _end(run, "stopped", "stopped before it started")
            runner = self._runners.get(run.id)
            if runner is not None:
                await runner.stop()
            channel = self._channels.get(run.id)
            if channel is not None:
                with contextlib.suppress(Exception):
                    await channel.command({"type": "abort"})
                channel.interrupt(STOP_EVENT)  # its kernel is stopped as the run ends
        self._save(job)
        return job

    async def steer(self, parent_id: str, target: str, text: str) -> dict[str, Any]:
        """Strict steering: only into the run the steer names, only while it runs. The answer
        is a receipt shaped like the agent's own `steer_receipt`: `rejected` with the reason
        when the run is not running (a stale lease) or its turn ended first, `admitted` when
        the child's next request already carried it, else `accepted` (its admission follows
        as the child's own receipt, in the child's events)."""
        job, run = self.resolve(parent_id, target)
        channel = self._channels.get(run.id)
        steer_id = f"steer-{uuid.uuid4().hex[:12]}"
        receipt: dict[str, Any] = {
            "type": "steer_receipt",
            "steer_id": steer_id,
            "text": text,
            "job_id": job.id,
            "run_id": run.id,
            "alias": run.alias,
            "reason": None,
        }
        if job.backend is not None:
            reason = f"{run.alias} runs on the {job.backend[0]} backend, which takes no steer"
            return {**receipt, "status": "rejected", "reason": reason}
        if run.state != "running" or channel is None:
            now = self._active_run(run.agent_id)
            later = f"; {now.alias} now runs {now.id}" if now and now.id != run.id else ""
            reason = f"run {run.id} is {run.state}, not running{later}"
            return {**receipt, "status": "rejected", "reason": reason}
        outcome = channel.expect(
            lambda e: e.get("type") == "steer_receipt" and e.get("steer_id") == steer_id
        )
        reply = await channel.command({"type": "steer", "text": text, "steer_id": steer_id})
        if not reply.get("ok"):
            return {**receipt, "status": "rejected", "reason": reply.get("message")}
        try:
            event = await asyncio.wait_for(outcome, STEER_RECEIPT_SECONDS)
        except TimeoutError:
            return {**receipt, "status": "accepted"}
        return {**receipt, "status": event.get("status"), "reason": event.get("reason"),
                "entry_id": event.get("entry_id"), "turn_id": event.get("turn_id")}  # fmt: skip

    def resolve(self, parent_id: str | None, target: str) -> tuple[JobRecord, RunRecord]:
        """A job, run or child id, or an alias of the parent's children (case-insensitive);
        an alias or child id means its newest run."""
        target = target.strip()
        jobs = [
            j
            for j in self.catalog.jobs.values()
            if parent_id is None or j.parent_agent_id == parent_id
        ]
        jobs.sort(key=lambda j: j.created)
        if target in self.catalog.jobs and self.catalog.jobs[target] in jobs:
            job = self.catalog.jobs[target]
            return job, job.runs[-1]
        wanted = aliases.normalize(target.split(" · ")[-1])
        found = [
            (j, r)
            for j in jobs
            for r in j.runs
            if target in (r.id, r.agent_id) or aliases.normalize(r.alias) == wanted
        ]
        if not found:
            raise JobNotFoundError(target)
        return found[-1]

    def _active_run(self, agent_id: str) -> RunRecord | None:
        for job in self.catalog.jobs.values():
            for run in job.runs:
                if run.agent_id == agent_id and not run.terminal:
                    return run
        return None

    async def wait(self, jobs: Iterable[JobRecord], seconds: float, every: bool) -> bool:
        """Whether all (`every`) or any of `jobs` ended within `seconds`."""
        wanted = list(jobs)
        deadline = time.monotonic() + seconds

        def done() -> bool:
            ended = [j.terminal for j in wanted]
            return all(ended) if every else any(ended)

        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)
        return True

    # ------------------------------------------------------------ reporting

    async def _deliver(self, job: JobRecord) -> None:
        if job.delivered:
            return
        kernel_id = self.registry.kernel_id(job.parent_agent_id)
        if kernel_id is None:
            return  # the parent's kernel is stopped: delivered when it runs again
        if await deliver_report(self.registry.km, kernel_id, job):
            job.delivered = True
            self._save(job)

    async def _deliver_pending(self) -> None:
        """Reports whose parent was not running when the job ended, retried while it is."""
        while True:
            await asyncio.sleep(1.0)
            for job in list(self.catalog.jobs.values()):
                if job.terminal and not job.delivered:
                    with contextlib.suppress(Exception):
                        await self._deliver(job)

    # ------------------------------------------------------------ helpers

    def _save(self, job: JobRecord) -> None:
        if self._closing:
            return  # runs stay `running` on disk and read as interrupted at the next start
        self.catalog.save(job)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        self._tell(job)

    def _tell(self, job: JobRecord) -> None:
        """Hand `on_change` the job when its summary moved since it was last told (a save that
        only kept a run's prompt or report says nothing new to subscribers)."""
        if self.on_change is None:
            return
        summary = job.summary()
        if self._told.get(job.id) == summary:
            return
        self._told[job.id] = summary
        try:
            self.on_change(job)
        except Exception:  # the events are a view: a failure there never stops a job
            self.log.warning("shard: could not publish job %s's change", job.id, exc_info=True)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _session_of(self, agent_id: str) -> str | None:
        pointer = self.home / "agents" / agent_id / "current-session"
        with contextlib.suppress(OSError):
            return pointer.read_text(encoding="utf-8").strip() or None
        return None


def _note(job: JobRecord, run: RunRecord) -> str:
    """Who a child is, said before its task."""
    return (
        f"You are {run.alias}, a subagent (agent {run.agent_id}) of agent "
        f"{job.parent_agent_id}: job {job.id}, run {run.id}. Your final answer is your "
        "report to it."
    )


def _end(run: RunRecord, state: Any, reason: str | None) -> None:
    if run.terminal:
        return
    run.state, run.reason, run.ended = state, reason, time.time()


def _chain_reason(job: JobRecord) -> str:
    if job.stopped_at is None:
        return "the job was stopped"
    return f"the chain stopped at step {job.stopped_at + 1}"


def _text(message: dict[str, Any]) -> str:
    blocks = message.get("content") or []
    return "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text").strip()
