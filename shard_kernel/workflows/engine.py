"""The workflow engine: load a file's `async def main(wf)`, run it with a `Workflow`, record each
finished step, and on resume replay recorded steps (by number, checked against what they ask)
instead of running them again.

    async def main(wf):
        a, b = await wf.parallel(wf.agent("fix bug_1.py"), wf.agent("fix bug_2.py"))
        await wf.agent(f"Summarise: {a} / {b}", definition="writer")

Steps are numbered in the order `wf.agent` and `wf.log` are called, so a file that calls them
in the same order resumes at its first unfinished step. A step that was made and never awaited,
a file that does not import or has no `main`, and a `main` that raises each end the run
`failed` with a message; what was recorded stays.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import traceback
from collections.abc import Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt
from shard_core.types.errors import ShardError
from shard_kernel.workflows.journal import Journal, RunRecord, StepRecord

Runner = Callable[[str, str | None, str | None, str | None], Awaitable[str]]
"""(task, definition, cwd, model) -> the agent's report"""
Asker = Callable[[int, QuestionPrompt], Awaitable[QuestionAnswer | None]]
"""(step number, question) -> the person's answer, None when no one can answer"""
MAX_CHOICES = 12


async def no_one(_n: int, _prompt: QuestionPrompt) -> QuestionAnswer | None:
    return None


PREVIOUS = "{previous}"


class WorkflowError(ShardError):
    """The workflow file cannot run, or its run went wrong; the message says what to fix."""


class AgentStep:
    """One `wf.agent(...)`: awaiting it runs the agent (or replays its recorded report)."""

    def __init__(self, wf: Workflow, n: int, task: str, options: tuple[str | None, ...]) -> None:
        self.wf, self.n, self.task, self.options = wf, n, task, options
        self.awaited = False
        self._task: asyncio.Task[str] | None = None

    def __await__(self) -> Generator[Any, None, str]:
        self.awaited = True
        if self._task is None:
            self._task = asyncio.ensure_future(self.wf.run_step(self))
        return self._task.__await__()


class Workflow:
    """The `wf` a workflow's `main` gets."""

    def __init__(
        self,
        journal: Journal,
        inputs: dict[str, str],
        runner: Runner,
        max_agents: int | None = None,
        asker: Asker = no_one,
    ) -> None:
        self.journal = journal
        self.max_agents = max_agents
        self.inputs = dict(inputs)
        self._runner = runner
        self._asker = asker
        self._recorded = journal.steps()
        self._next = 0
        self.made: list[AgentStep] = []
        self.replayed = 0
        self.ran = 0

    def agent(
        self,
        task: str,
        *,
        definition: str | None = None,
        cwd: str | None = None,
        model: str | None = None,
    ) -> AgentStep:
        if not isinstance(task, str) or not task.strip():
            raise WorkflowError("wf.agent needs a task: the prompt the agent runs")
        if self.max_agents is not None and len(self.made) >= self.max_agents:
            raise WorkflowError(
                f"the workflow asked for agent {len(self.made) + 1}; its bound is "
                f"{self.max_agents} (--max-agents)"
            )
        step = AgentStep(self, self._number(), task, (definition, cwd, model))
        self.made.append(step)
        return step

    async def parallel(self, *steps: AgentStep) -> list[str]:
        return list(await asyncio.gather(*steps))

    async def chain(self, *tasks: str, definition: str | None = None) -> str:
        """Each task after the first gets the previous report where it says `{previous}`."""
        report = ""
        for task in tasks:
            report = await self.agent(task.replace(PREVIOUS, report), definition=definition)
        return report

    async def ask(
        self,
        question: str,
        choices: list[str] | tuple[str, ...],
        *,
        allow_other: bool = False,
        multi: bool = False,
    ) -> str | list[str] | None:
        """A question to the person: their choice (a list with `multi`), None when no one can
        answer. A step like `wf.agent`: a resumed run replays the recorded answer."""
        prompt = _question(question, choices, allow_other, multi)
        n = self._number()
        recorded = self._recorded.get(n)
        if recorded is not None:
            if recorded.kind != "ask" or recorded.asked != prompt.question:
                raise WorkflowError(
                    f"step {n} is not what this run recorded (it asked {recorded.asked!r}); "
                    "the file changed since: start a new run"
                )
            self.replayed += 1
            values = json.loads(recorded.result)
        else:
            answer = await self._asker(n, prompt)
            values = None if answer is None else list(answer.values)
            by = None if answer is None else answer.decided_by
            result = json.dumps(values)
            self.journal.add(StepRecord(n=n, kind="ask", asked=prompt.question, result=result,
                                        decided_by=by))  # fmt: skip
        if values is None:
            return None
        return list(values) if multi else values[0]

    def log(self, text: str) -> None:
        n = self._number()
        if n not in self._recorded:
            self.journal.add(StepRecord(n=n, kind="log", asked=str(text), result=""))

    def _number(self) -> int:
        n, self._next = self._next, self._next + 1
        return n

    async def run_step(self, step: AgentStep) -> str:
        recorded = self._recorded.get(step.n)
        if recorded is not None:
            if recorded.kind != "agent" or recorded.asked != step.task:
                raise WorkflowError(
                    f"step {step.n} is not what this run recorded (it asked {recorded.asked!r}); "
                    "the file changed since: start a new run"
                )
            self.replayed += 1
            return recorded.result
        if self.journal.cancelled():
            raise WorkflowError("the run was cancelled")
        report = await self._runner(step.task, *step.options)
        self.journal.add(StepRecord(n=step.n, kind="agent", asked=step.task, result=report))
        self.ran += 1
        return report


def _question(
    question: object, choices: object, allow_other: object, multi: object
) -> QuestionPrompt:
    if not isinstance(question, str) or not question.strip():
        raise WorkflowError("wf.ask needs a question")
    if isinstance(choices, str) or not isinstance(choices, list | tuple):
        raise WorkflowError("wf.ask needs its choices as a list of strings")
    picked = [" ".join(str(c).split()) for c in choices]
    if not picked or len(picked) > MAX_CHOICES or not all(picked):
        raise WorkflowError(f"wf.ask takes 1 to {MAX_CHOICES} choices, each with text")
    if len(set(picked)) != len(picked):
        raise WorkflowError("wf.ask: each choice must be different")
    return QuestionPrompt(question.strip(), tuple(picked), allow_other is True, multi is True)


def load_main(path: Path) -> Callable[[Workflow], Awaitable[object]]:
    """The file's `async def main(wf)`, or a WorkflowError saying why not."""
    if not path.is_file():
        raise WorkflowError(f"no workflow file at {path}")
    spec = importlib.util.spec_from_file_location(f"shard_workflow_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise WorkflowError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise WorkflowError(f"{path} does not import: {type(exc).__name__}: {exc}") from None
    main = getattr(module, "main", None)
    if main is None or not inspect.iscoroutinefunction(main):
        raise WorkflowError(f"{path} has no `async def main(wf)`")
    return main


async def run_workflow(
    home: Path,
    file: Path,
    inputs: dict[str, str],
    runner: Runner,
    resume: str | None = None,
    *,
    max_agents: int | None = None,
    deadline: float | None = None,
    asker: Asker = no_one,
    journal: Journal | None = None,
    spent: float = 0.0,
) -> tuple[RunRecord, Workflow | None]:
    """Run (or resume) a workflow; the run's record at its end, and the `wf` it ran with.
    `deadline`: seconds the run may take, `spent` of them already gone (a gateway run resumed
    after a restart counts from its start; a local `--resume` has a deadline of its own);
    then its running steps are stopped and the run fails saying so (what finished stays
    recorded). `journal`: a run already created (the gateway writes its record before it
    starts it)."""
    if journal is not None:
        file, inputs = Path(journal.record().file), journal.record().inputs
    elif resume is not None:
        journal = Journal(home, resume)
        record = journal.record()
        if record.where == "gateway":
            raise WorkflowError(f"run {resume} runs in a gateway, which resumes it itself")
        journal.save(record.model_copy(update={"state": "running", "error": None}))
        file, inputs = Path(record.file), record.inputs
    else:
        journal = Journal.create(home, RunRecord(file=str(file.resolve()), inputs=inputs))
    late = f"the run passed its deadline of {deadline or 0:g} s (--deadline); finished steps stay"
    if deadline is not None and deadline <= spent:
        return journal.finish("failed", error=late, pending=None), None
    try:
        main = load_main(file)
    except WorkflowError as exc:
        return journal.finish("failed", error=str(exc)), None
    wf = Workflow(journal, inputs, runner, max_agents, asker)
    try:
        result = await asyncio.wait_for(main(wf), None if deadline is None else deadline - spent)
    except TimeoutError:
        return journal.finish("failed", error=late, pending=None), wf
    except WorkflowError as exc:
        state = "cancelled" if journal.cancelled() else "failed"
        return journal.finish(state, error=str(exc)), wf
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(file)]
        where = f" (line {frames[-1].lineno})" if frames else ""
        error = f"main raised {type(exc).__name__}: {exc}{where}"
        return journal.finish("failed", error=error), wf
    idle = [s for s in wf.made if not s.awaited]
    if idle:
        error = (f"step {idle[0].n} (wf.agent({idle[0].task[:60]!r})) was never awaited: "
                 "await it, or pass it to wf.parallel")  # fmt: skip
        return journal.finish("failed", error=error), wf
    return journal.finish("completed", result=None if result is None else str(result)), wf
