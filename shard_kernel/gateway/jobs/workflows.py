"""WorkflowHost: workflow runs as durable gateway jobs.

A run gets an agent of its own (a manifest, no kernel: "workflow fix.py"), the parent its steps'
agents are listed under in the panel and the dashboard; its rules are those of whoever started
it (the starting agent's, or the create request's), so a step's agent, a subagent job of it
(coordinator.py), never gets more. Each `wf.agent` is one job, its id kept in `run.json`; each
finished step is a line of `steps.jsonl` (shard_kernel.workflows.journal). At start the gateway
resumes every run still `running` on disk: recorded steps are replayed, not run again. A
`wf.ask` waits in `run.json` (`pending`) until someone answers it, over REST or, when an agent
started the run, in any client of that agent (an ask_user dialog); the first answer wins.
Every change is a `workflow_updated` event on `/shard/api/events`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt, question_problem
from shard_core.protocol.orchestrator import PermissionConfig, WorkflowUpdatedEvent
from shard_kernel.gateway.jobs.channel import AgentChannel, ChannelError
from shard_kernel.gateway.jobs.coordinator import Coordinator
from shard_kernel.gateway.jobs.launch import LaunchError, LaunchRequest
from shard_kernel.gateway.jobs.relay import nearest_person
from shard_kernel.gateway.manifest import AgentManifest, new_agent_id
from shard_kernel.workflows import Journal, RunRecord, WorkflowError
from shard_kernel.workflows.journal import PendingAsk

WAIT_SLICE = 3600.0
RELAY_RETRY_SECONDS = 2.0
CLOSE_SECONDS = 10.0
WORKER_GRACE = 2.0
"""seconds past a run's deadline before its blocked process is killed (it stops itself first)"""


class WorkflowConflictError(RuntimeError):
    """The run or question is not in a state for that (409)."""


class WorkflowHost:
    def __init__(self, coordinator: Coordinator, log: logging.Logger) -> None:
        self.coordinator = coordinator
        self.registry = coordinator.registry
        self.home = coordinator.home
        self.log = log
        self.on_change: Callable[[RunRecord], None] | None = None
        self.on_agent: Callable[[str], None] = lambda _agent_id: None
        """Told of a run's new agent (the events publish its row, so views list it at once)."""
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._active: dict[str, set[str]] = {}  # run id -> its running jobs
        self._asks: dict[str, asyncio.Future[QuestionAnswer]] = {}  # request id -> its answer
        self._relays: set[asyncio.Task[None]] = set()  # the questions put to starters' clients
        self._closing = False

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """On the running loop: resume every gateway run a stop or crash left running."""
        for record in Journal.all(self.home):
            if record.where == "gateway" and record.state == "running":
                self.log.info("shard: resuming workflow %s", record.id)
                self._spawn(record.id)

    async def close(self) -> None:
        """At server stop: let go of the runs (they stay `running`, resumed at the next start)."""
        self._closing = True
        tasks = [*self._tasks.values(), *self._relays]
        for task in tasks:
            task.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), CLOSE_SECONDS)

    # ------------------------------------------------------------ runs

    def launch(
        self,
        file: Path,
        inputs: dict[str, str],
        *,
        starter: str | None,
        cwd: Path | None,
        model: str | None,
        permissions: PermissionConfig | None,
        max_agents: int | None,
        deadline: float | None,
    ) -> RunRecord:
        """Write the run and its agent, then start it (LaunchError: what to fix)."""
        if not file.is_file():
            raise LaunchError(f"no workflow file at {file}")
        record = RunRecord(file=str(file), inputs=inputs, where="gateway", started_by=starter,
                           max_agents=max_agents, deadline=deadline)  # fmt: skip
        agent = self._agent(file, record.id, starter, cwd or file.parent, model, permissions)
        record.agent_id = agent.id
        self.registry.store.save(agent)
        self.registry.manifests[agent.id] = agent
        self.on_agent(agent.id)
        Journal.create(self.home, record)
        self._tell(record)
        self._spawn(record.id)
        return record

    def _agent(
        self,
        file: Path,
        run_id: str,
        starter: str | None,
        cwd: Path,
        model: str | None,
        permissions: PermissionConfig | None,
    ) -> AgentManifest:
        """The run's own agent: the starter's rules (and mode), or the request's."""
        if not cwd.is_dir():
            raise LaunchError(f"cwd: no folder at {cwd}")
        base: dict[str, Any] = {"permissions": permissions or PermissionConfig(), "mode": "build"}
        if starter is not None:
            parent = self.registry.manifests.get(starter)
            if parent is None:
                raise LaunchError(f"agent: no agent {starter} in this gateway")
            if permissions is not None:
                raise LaunchError("a workflow an agent starts has that agent's rules: drop them")
            base = {"permissions": parent.permissions, "mode": parent.mode,
                    "headless_policy": parent.headless_policy, "parent_agent_id": parent.id,
                    "model": model or parent.model}  # fmt: skip
        return AgentManifest(
            id=new_agent_id(), name=f"workflow {file.name} ({run_id})", cwd=str(cwd.resolve()),
            **{"model": model, **base}, rules_from="the workflow's starter",
        )  # fmt: skip

    def journal(self, run_id: str) -> Journal:
        journal = Journal(self.home, run_id)
        if journal.record().where != "gateway":
            raise KeyError(run_id)
        return journal

    def runs(self) -> list[RunRecord]:
        return [r for r in Journal.all(self.home) if r.where == "gateway"]

    def _spawn(self, run_id: str) -> None:
        task = asyncio.ensure_future(self._drive(run_id))
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))

    async def _drive(self, run_id: str) -> None:
        """Run the file in a process of its own (shard_kernel.workflows.worker): a file that
        blocks or crashes ends its run, never the gateway. Its steps and questions come here
        as requests; the deadline is enforced here too (a blocked file is killed)."""
        journal = Journal(self.home, run_id)
        record = journal.record()
        self._active[run_id] = set()
        spent = max(0.0, time.time() - record.created)  # a restart does not reset the deadline
        proc: asyncio.subprocess.Process | None = None
        try:
            with (journal.folder / "worker.log").open("ab") as log:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "shard_kernel.workflows.worker", str(self.home),
                    run_id, repr(spent), stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=log,
                    cwd=Path(record.file).parent if Path(record.file).parent.is_dir() else None,
                )  # fmt: skip
            left = None if record.deadline is None else record.deadline - spent + WORKER_GRACE
            try:
                await asyncio.wait_for(self._serve(journal, proc), left)
            except TimeoutError:
                late = (f"the run passed its deadline of {record.deadline:g} s (--deadline); "
                        "finished steps stay")  # fmt: skip
                if journal.record().state == "running":
                    self._tell(journal.finish("failed", error=late, pending=None))
                return
            code = await proc.wait()
            end = journal.record()
            if end.state == "running":  # the process died before the run ended
                said = _last_line(journal.folder / "worker.log")
                error = (f"the workflow's process ended (exit code {code}) before the run did"
                         + (f": {said}" if said else ""))  # fmt: skip
                end = journal.finish("failed", error=error, pending=None)
            self._tell(end)
        except asyncio.CancelledError:
            if not self._closing and journal.record().state == "running":
                self._tell(journal.finish("cancelled", pending=None))
            raise
        except Exception as exc:  # the host's own failure ends the run, never the gateway
            self.log.warning("shard: workflow %s failed", run_id, exc_info=True)
            self._tell(journal.finish("failed", error=f"{type(exc).__name__}: {exc}"))
        finally:
            if proc is not None and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                with contextlib.suppress(Exception):
                    await asyncio.shield(proc.wait())
            if not self._closing:
                for job_id in self._active.pop(run_id, set()):
                    with contextlib.suppress(Exception):
                        await self.coordinator.stop(None, job_id)

    async def _serve(self, journal: Journal, proc: asyncio.subprocess.Process) -> None:
        """Answer the worker's requests (each in a task of its own: parallel steps) until its
        stdout ends."""
        stdout, stdin = proc.stdout, proc.stdin
        assert stdout is not None
        assert stdin is not None
        tasks: set[asyncio.Task[None]] = set()

        async def handle(request: dict[str, Any]) -> None:
            reply: dict[str, Any] = {"id": request.get("id")}
            try:
                if request.get("op") == "agent":
                    reply["report"] = await self._step(
                        journal, str(request["task"]), request.get("definition"),
                        request.get("cwd"), request.get("model"),
                    )  # fmt: skip
                elif request.get("op") == "ask":
                    prompt = QuestionPrompt(str(request["question"]),
                                            tuple(str(c) for c in request["choices"]),
                                            request.get("allow_other") is True,
                                            request.get("multi") is True)  # fmt: skip
                    answer = await self._ask(journal, int(request["n"]), prompt)
                    reply.update(values=list(answer.values), decided_by=answer.decided_by)
                else:
                    reply["error"] = f"no such request: {request.get('op')!r}"
            except WorkflowError as exc:
                reply["error"] = str(exc)
            except (KeyError, TypeError, ValueError) as exc:
                reply["error"] = f"a bad request from the workflow's process: {exc}"
            if not stdin.is_closing():
                stdin.write(json.dumps(reply).encode() + b"\n")
                with contextlib.suppress(ConnectionError):
                    await stdin.drain()

        try:
            while line := await stdout.readline():
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                if isinstance(request, dict):
                    task = asyncio.ensure_future(handle(request))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
        finally:
            for task in list(tasks):
                task.cancel()

    async def _step(
        self,
        journal: Journal,
        task: str,
        definition: str | None,
        cwd: str | None,
        model: str | None,
    ) -> str:
        """One `wf.agent`: a subagent job of the run's agent; its report, or WorkflowError."""
        record = journal.record()
        assert record.agent_id is not None
        place = {k: v for k, v in (("model", model), ("cwd", _folder(cwd, record))) if v}
        try:
            request = LaunchRequest(parent=record.agent_id, task=task, agent=definition)
            job = self.coordinator.launch(request, place)
        except (LaunchError, ValueError) as exc:
            raise WorkflowError(str(exc)) from None
        active = self._active.setdefault(record.id, set())
        active.add(job.id)
        now = journal.record()
        journal.save(now.model_copy(update={"jobs": [*now.jobs, job.id]}))
        self._tell(journal.record())
        while not await self.coordinator.wait([job], WAIT_SLICE, True):
            pass
        active.discard(job.id)
        run = job.runs[0]
        if run.state != "completed":
            raise WorkflowError(f"the agent {run.alias} of step {task[:60]!r} {run.state}: "
                                f"{run.reason or 'no reason given'}")  # fmt: skip
        return run.report or ""

    async def cancel(self, run_id: str) -> RunRecord:
        journal = self.journal(run_id)
        if journal.record().state != "running":
            raise WorkflowConflictError(f"run {run_id} is {journal.record().state}, not running")
        record = journal.finish("cancelled", pending=None)
        task = self._tasks.get(run_id)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tell(record)
        return record

    # ------------------------------------------------------------ questions

    async def _ask(self, journal: Journal, n: int, prompt: QuestionPrompt) -> QuestionAnswer:
        """Put the question in `run.json` (the same request id again after a restart) and wait
        for the first valid answer."""
        record = journal.record()
        old = record.pending
        pending = PendingAsk(n=n, question=prompt.question, choices=list(prompt.choices),
                             allow_other=prompt.allow_other, multi=prompt.multi)  # fmt: skip
        if old is not None and (old.n, old.question) == (n, prompt.question):
            pending = pending.model_copy(update={"request_id": old.request_id})
        future = self._future(pending.request_id)
        journal.save(record.model_copy(update={"pending": pending}))
        self._tell(journal.record())
        relay = asyncio.ensure_future(self._relay(journal.record(), prompt, future))
        self._relays.add(relay)
        relay.add_done_callback(self._relays.discard)
        try:
            answer = await future
        finally:
            self._asks.pop(pending.request_id, None)
            if not future.done():  # cancelled: no answer to close the clients' question with
                relay.cancel()
        record = journal.record()
        answered = {**record.answered, pending.request_id: answer.decided_by}
        journal.save(record.model_copy(update={"pending": None, "answered": answered}))
        self._tell(journal.record())
        return answer

    async def _relay(
        self, record: RunRecord, prompt: QuestionPrompt, future: asyncio.Future[QuestionAnswer]
    ) -> None:
        """The question also to the people of the agent that started the run (or the nearest
        one up its line with a person): an ask_user dialog in each of its clients (the kernel's
        prompt, the widget, the Lab chat, ACP); asked again when one round gets no answer. An
        answer from elsewhere (REST) first closes the dialog there, naming who answered."""
        while record.started_by is not None and not future.done():
            person = await nearest_person(self.registry, record.started_by)
            kernel_id = None if person is None else self.registry.kernel_id(person.id)
            if person is None or kernel_id is None:
                await _first(future, asyncio.sleep(RELAY_RETRY_SECONDS))
                continue
            channel = AgentChannel(self.registry.km, kernel_id, f"workflow {record.id}")
            command = {
                "type": "relay_ask", "title": prompt.question, "options": list(prompt.choices),
                "message": f"workflow {Path(record.file).name} ({record.id}) asks",
                "question": True, "multi": prompt.multi, "allow_other": prompt.allow_other,
            }  # fmt: skip
            reply: dict[str, Any] = {}
            try:
                await channel.open()
                asked = channel.expect(lambda e: e.get("type") == "ui_request"
                                       and e.get("title") == prompt.question)  # fmt: skip
                sent = asyncio.ensure_future(
                    channel.command(command, seconds=person.permission_timeout + 10)
                )
                if not await _first(future, sent):  # answered elsewhere while it is open here
                    await self._close_question(kernel_id, asked, future.result(), record.id)
                    sent.cancel()
                    return
                reply = sent.result()
            except (ChannelError, TimeoutError) as exc:
                self.log.info("shard: workflow %s's question did not reach %s: %s", record.id,
                              person.name, exc)  # fmt: skip
                await _first(future, asyncio.sleep(RELAY_RETRY_SECONDS))
            finally:
                with contextlib.suppress(Exception):
                    await channel.close()
            data = reply.get("data") or {}
            value = data.get("value")
            if isinstance(value, list) and value and not future.done():
                by = str(data.get("decided_by") or f"a person on {person.name}")
                future.set_result(QuestionAnswer(tuple(str(v) for v in value), by))

    async def _close_question(
        self,
        kernel_id: str,
        asked: asyncio.Future[dict[str, Any]],
        answer: QuestionAnswer,
        run_id: str,
    ) -> None:
        """Answer the question open in a kernel's clients with the answer given elsewhere, in
        the name of who gave it: its `ui_resolved` closes the dialog in every client there."""
        try:
            event = await asyncio.wait_for(asked, CLOSE_SECONDS)
        except TimeoutError:
            return  # never asked there (no one interactive): nothing to close
        closer = AgentChannel(self.registry.km, kernel_id, f"workflow {run_id}", "interactive")
        try:
            await closer.open()
            await closer.command({
                "type": "ui_response", "request_id": event.get("request_id"),
                "value": list(answer.values), "client_id": closer.comm_id,
                "label": answer.decided_by[:80],
            })  # fmt: skip
        except (ChannelError, TimeoutError) as exc:
            self.log.info("shard: workflow %s's question stays open in %s: %s", run_id,
                          kernel_id, exc)  # fmt: skip
        finally:
            with contextlib.suppress(Exception):
                await closer.close()

    def answer(self, run_id: str, request_id: str, values: list[str], label: str) -> RunRecord:
        """The first valid answer settles the question; a later one is a conflict naming who
        answered, an invalid one a ValueError (the question stays open)."""
        record = self.journal(run_id).record()
        if request_id in record.answered:
            by = record.answered[request_id]
            raise WorkflowConflictError(f"the question was already answered by {by}")
        pending = record.pending
        if pending is None or pending.request_id != request_id:
            raise WorkflowConflictError(f"run {run_id} has no open question {request_id}")
        # a resumed run may not have reached its question yet: the answer waits for it
        future = self._future(request_id)
        if future.done():  # answered, and not yet recorded (a resumed run not there yet)
            by = future.result().decided_by if not future.cancelled() else "someone"
            raise WorkflowConflictError(f"the question was already answered by {by}")
        prompt = QuestionPrompt(pending.question, tuple(pending.choices), pending.allow_other,
                                pending.multi)  # fmt: skip
        problem = question_problem(prompt, values)
        if problem is not None:
            raise ValueError(f"{problem}; the question is still open")
        future.set_result(QuestionAnswer(tuple(values), label))
        return record

    def _future(self, request_id: str) -> asyncio.Future[QuestionAnswer]:
        future = self._asks.get(request_id)
        if future is None:
            future = self._asks[request_id] = asyncio.get_running_loop().create_future()
        return future

    # ------------------------------------------------------------ events

    def _tell(self, record: RunRecord) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change(record)
        except Exception:  # the events are a view: a failure there never stops a run
            self.log.warning("shard: could not publish workflow %s", record.id, exc_info=True)


async def _first(future: asyncio.Future[QuestionAnswer], work: Awaitable[Any]) -> bool:
    """Wait for `work` or the answer; True when `work` ended first (else it is left running)."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.wait({task, future}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task.done():
        return True
    if task is not work:  # a coroutine of the caller's: nothing else holds it
        task.cancel()
    return False


def updated_event(record: RunRecord) -> WorkflowUpdatedEvent:
    return WorkflowUpdatedEvent(
        run_id=record.id, state=record.state, run=record.summary(), ts=time.time()
    )


def _last_line(path: Path) -> str:
    """The last line the workflow's process wrote to its log (a traceback's last line)."""
    try:
        lines = path.read_bytes()[-4000:].decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def _folder(cwd: str | None, record: RunRecord) -> str | None:
    """A step's own folder: relative to the workflow file's, and it must exist."""
    if cwd is None:
        return None
    folder = (Path(record.file).parent / cwd).expanduser().resolve()
    if not folder.is_dir():
        raise WorkflowError(f"wf.agent cwd: no folder at {folder}")
    return str(folder)
