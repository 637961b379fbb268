"""AgentSession: one agent's turn loop — prompt, steer, abort, modes, compaction boundaries.

The loop reads top to bottom in `_turn`: log the prompt, then repeat {drain steering, call the
provider, run the tools it asked for} until the model stops asking for tools. Everything the
model sees is in the log before the request that shows it to the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import uuid
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import Any

from shard_core.contracts import (
    CompactionInput,
    Compactor,
    Mode,
    ModeContext,
    PermissionGate,
    Provider,
)
from shard_core.contracts.codeintel import WarmingProvider
from shard_core.contracts.compactor import ObservingCompactor
from shard_core.engine import lifecycle, runs
from shard_core.engine.compaction import live_context
from shard_core.engine.events import EventStream
from shard_core.engine.hook_points import HOOK_LABEL, HookPlace, HookPoints, PromptCheck
from shard_core.engine.inbox import Inbox, Injection, context_text
from shard_core.engine.model_title import retitle
from shard_core.engine.projection import Projector
from shard_core.engine.prompt import SectionSource, assemble, contributed_sections
from shard_core.engine.registry import ToolRegistryImpl
from shard_core.engine.session_config import SessionConfig
from shard_core.engine.session_store import SessionStore
from shard_core.engine.step import StepDeps, StepRunner, StepState
from shard_core.engine.titles import TitleSource, clean_title, latest_title, title_from_prompt
from shard_core.engine.usage import UsageMeter
from shard_core.engine.usage_history import UsageLog
from shard_core.protocol.events import (
    AgentStatus,
    CompactionEvent,
    ContextInjectedEvent,
    ErrorEvent,
    Event,
    HookRunEvent,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    StatusEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnEndReason,
    TurnStartEvent,
)
from shard_core.types import (
    AssistantMessage,
    CheckpointEntry,
    CompactionEntry,
    ContextKind,
    HookRunCheckpoint,
    ImageBlock,
    InjectedContext,
    MessageDetails,
    MessageEntry,
    ModeCheckpoint,
    SystemSection,
    TextBlock,
    TitleCheckpoint,
    TodoItem,
    ToolResultEntry,
    UserMessage,
)
from shard_core.types.errors import ConfigError, ProviderError, SessionError

DEMO_NOTE = "demo: the scripted demo provider answers; no model is called"
__all__ = ["DEMO_NOTE", "AgentSession", "SessionConfig"]


class AgentSession:
    def __init__(
        self,
        config: SessionConfig,
        *,
        store: SessionStore,
        provider: Provider,
        tools: ToolRegistryImpl,
        modes: dict[str, Mode],
        gate: PermissionGate,
        stable_sections: Sequence[SystemSection],
        compactor: Compactor | None = None,
        events: EventStream | None = None,
        section_sources: Sequence[SectionSource] = (),
        hook_points: HookPoints | None = None,
    ) -> None:
        if config.mode not in modes:
            raise ConfigError(f"unknown mode {config.mode!r}; known: {', '.join(sorted(modes))}")
        self.config = config
        self.store = store
        self.provider = provider
        self.tools = tools
        self.modes = modes
        self.gate = gate
        self.compactor = compactor
        self.events = events or EventStream(config.agent_id)
        # One redactor at the two doors: nothing reaches the log or a client with a known
        # secret in it, whichever path (prompt, steer, task notice, tool result) it took.
        self.store.secrets = self.events.secrets = config.secrets
        self.stable_sections = list(stable_sections)
        self.section_sources = list(section_sources)
        self.hook_points = hook_points or HookPoints()
        """extensions' `before_tool` / `after_tool` handlers, awaited around each tool call"""
        """extensions' `prompt_sections` sources, asked again for every request's branch"""
        self.diagnostics: list[str] = []
        """what was skipped or failed at assembly, one line each; every status event carries it"""
        self.meter = UsageMeter(context_window=provider.context_window)
        self.status: AgentStatus = "idle"
        self.mode = self._restore_mode(config.mode)
        self.inbox = Inbox(self.events)
        title = latest_title(store.branch())
        self.title: str | None = title.title if title else None
        self.goal: str | None = None
        """the active goal, as the goals capability keeps it: every status event carries it"""
        self.todos: list[TodoItem] | None = None
        """the todo list, as the todos capability keeps it: every status event carries it"""
        self.title_task: asyncio.Task[None] | None = None
        """the model-written title being asked for (config `titles.model`), if any"""
        self.follow_ups: set[asyncio.Task[None]] = set()
        """work a step started and did not wait for (a language server's check of an edit)"""
        self._warmed = False
        self._title_prompt: str | None = None
        self._turn_task: asyncio.Task[TurnEndEvent] | None = None
        self._abort_requested = False
        self._chained = False
        """between the turns of one run (goal.continue): an abort ends the run"""
        self._cancel = asyncio.Event()
        self._asking: set[str] = set()
        self._tool_open = False
        self._announced = False
        self.projector = Projector()
        self.known_contexts: set[tuple[str, str]] = set()
        self.usage_log = UsageLog(
            config.usage_log, self.agent_id, store.session_id, str(config.cwd)
        )
        self.events.subscribe(self._track_asks)

    # ------------------------------------------------------------ public API

    @property
    def agent_id(self) -> str:
        return self.config.agent_id

    @property
    def running(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    async def run(self, text: str, images: Sequence[ImageBlock] = ()) -> TurnEndEvent:
        """Run the prompt's turn to its end, then each turn an `after_turn` handler asks for
        (goal.continue); events go to `self.events` subscribers. `images` go with the prompt,
        after its text. Returns the last turn's end."""
        if self.running or self._chained:
            raise SessionError("a turn is already running: steer it or abort it first")
        self._chained = True
        try:
            return await runs.chained(self, await self._run_turn(text, images), self._run_turn)
        finally:
            self._chained = False

    @property
    def abort_requested(self) -> bool:
        return self._abort_requested

    async def _run_turn(self, text: str, images: Sequence[ImageBlock] = ()) -> TurnEndEvent:
        self._abort_requested = False
        self._cancel = asyncio.Event()
        self._turn_task = asyncio.create_task(self._turn(text, images))
        try:
            end = await asyncio.shield(self._turn_task)
        except asyncio.CancelledError:
            self.abort()  # the caller went away (e.g. a kernel interrupt): end the turn cleanly
            with contextlib.suppress(asyncio.CancelledError):
                await self._turn_task
            raise
        await self.after_turn()
        if self._title_prompt is not None:  # after the turn: a title never delays a reply
            prompt, self._title_prompt = self._title_prompt, None
            rename = functools.partial(self.set_title, source="model")
            title = retitle(self.provider, prompt, self.usage_log, lambda: self.title, rename)
            self.title_task = asyncio.create_task(title)
        return end

    async def prompt(self, text: str) -> AsyncIterator[Event]:
        """Run the prompt (its turn and any goal.continue adds), yielding its events as they
        happen, ending with the last `turn_end`."""
        async for event in runs.events_of(self, self.run(text)):
            yield event

    def steer(
        self,
        text: str,
        *,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
        images: Sequence[ImageBlock] = (),
    ) -> str:
        """Put a message (and `images`, after its text) into the next provider request of the
        running turn; returns the steer's id. Its `steer_receipt` says whether a request carried
        it (see inbox.py); `queue` lets it wait for the next turn instead of being rejected."""
        return self.inbox.steer(
            text,
            running=self.running,
            steer_id=steer_id,
            replace=replace,
            queue=queue,
            images=images,
        )

    def inject(self, text: str, kind: ContextKind = "note", label: str | None = None) -> str | None:
        """Add context the next provider request carries, without starting a turn. Idle: logged
        now (returns the entry id); during a turn: logged before the turn's next request."""
        if self.running:
            self.inbox.inject(text, kind, label)
            return None
        entry_id = self._log_injection(Injection(text, kind, label), None)
        self.store.sync()
        return entry_id

    def follow_up(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `work` beside the turn (it reports through events and `inject`); it is
        cancelled when the agent closes (`stop_follow_ups`)."""
        task = asyncio.create_task(work)
        self.follow_ups.add(task)
        task.add_done_callback(self.follow_ups.discard)
        return task

    def _warm_code_index(self) -> None:
        """The registered code intelligence starts what it is slow to start (a language
        server) beside the first turn, ahead of the first edit."""
        index = self.config.code_index
        if not self._warmed and isinstance(index, WarmingProvider):
            self.follow_up(index.warm())
        self._warmed = True

    async def stop_follow_ups(self) -> None:
        """Cancel every follow-up and wait for those of this loop (the kernel may close the
        agent from another loop than the turn's: those are only cancelled)."""
        loop = asyncio.get_running_loop()
        tasks = list(self.follow_ups)
        for task in tasks:
            task.cancel()
        mine = [task for task in tasks if task.get_loop() is loop]
        if mine:
            await asyncio.gather(*mine, return_exceptions=True)

    def set_title(self, title: str, source: TitleSource = "user") -> str:
        """Name the session (logged; the newest title wins, forks inherit it)."""
        text = clean_title(title)
        if not text:
            raise ConfigError("a title needs at least one visible character")
        self.store.append(CheckpointEntry, TitleCheckpoint(title=text, source=source))
        self.store.sync()
        self.title = text
        self._emit_status(self.status)
        return text

    def abort(self) -> bool:
        """Cancel the running turn; False when there is none."""
        if not self.running or self._turn_task is None:
            if self._chained:
                self._abort_requested = True  # no next turn of the run starts
            return self._chained
        self._abort_requested = True
        self._cancel.set()
        self._turn_task.cancel()
        return True

    def set_mode(self, name: str) -> None:
        if name not in self.modes:
            raise ConfigError(f"unknown mode {name!r}; known: {', '.join(sorted(self.modes))}")
        if name == self.mode:
            return
        self.store.append(CheckpointEntry, ModeCheckpoint(mode=name))
        self.mode = name
        self._emit_status(self.status)

    def mode_context(self) -> ModeContext:
        return ModeContext(branch=self.store.branch())

    def system_sections(self) -> list[SystemSection]:
        branch = self.store.branch()
        summary, _ = live_context(branch)
        mode_section = self.modes[self.mode].prompt_section(self.mode_context())
        offered = contributed_sections(self.section_sources, branch)
        return assemble([*self.stable_sections, *offered], mode_section, summary)

    async def compact(
        self, reason: str = "manual", *, force: bool = False
    ) -> CompactionEvent | None:
        """Compact now (at a boundary: never call this while a turn runs a tool). None when
        there is nothing worth folding: nothing new, or a summary that would not make the
        context smaller (unless `force`)."""
        if self.compactor is None:
            return None
        branch = self.store.branch()
        index = sum(isinstance(e, CompactionEntry) for e in branch)
        window = self.meter.context_window
        data = CompactionInput(
            branch=branch,
            context_tokens=self.meter.context_tokens,
            context_window=window,
            target_tokens=int(window * self.config.compact_threshold * 0.5),
            reason=reason,
            index=index,
            force=force,
        )
        await lifecycle.before_compact(self, reason)
        details = self.compactor.compact(data)
        if details is None:
            return None
        entry = self.store.append(CompactionEntry, details)
        self.store.sync()
        self.meter.context_tokens = details.tokens_after
        return self.events.emit(
            CompactionEvent,
            index=details.index,
            entry_id=entry.id,
            tokens_before=details.tokens_before,
            tokens_after=details.tokens_after,
            entries_folded=_folded(branch, details.first_kept_entry_id),
            reason=details.reason,
            compactor=details.compactor,
        )

    def close_dangling_calls(self, text: str) -> list[str]:
        """After a crash: give the last message's unanswered tool calls an error result.

        Returns the names of the calls closed. Only valid while no turn runs.
        """
        if self.running:
            raise SessionError("cannot close tool calls while a turn runs")
        branch = self.store.branch()
        answered = {e.details.tool_call_id for e in branch if isinstance(e, ToolResultEntry)}
        last = next(
            (
                e.details.message
                for e in reversed(branch)
                if isinstance(e, MessageEntry) and isinstance(e.details.message, AssistantMessage)
            ),
            None,
        )
        if last is None:
            return []
        step = StepRunner(self._step_deps(), StepState("recovery", self._cancel))
        step.expect([c for c in last.tool_calls if c.id not in answered])
        closed = [c.name for c in step.unanswered]
        step.close_unanswered(text)
        return closed

    def emit_status(self, message: str | None = None) -> StatusEvent:
        return self._emit_status(self.status, message)

    def hook_place(self, turn_id: str | None = None) -> HookPlace:
        """What every hook point's input says of where it fires (`hook_points.py`)."""
        return HookPlace(
            session_id=self.store.session_id,
            transcript_path=str(self.store.path),
            cwd=str(self.config.cwd),
            turn_id=turn_id,
            parent_agent_id=self.config.parent_agent_id,
            agent_id=self.agent_id,
            report=self.record_hook_run,
        )

    def record_hook_run(self, run: HookRunCheckpoint) -> None:
        """A hook's run, in the log and as a `hook_run` event (both redacted at their door)."""
        entry = self.store.append(CheckpointEntry, run)
        if not self.running:
            self.store.sync()
        self.events.emit(HookRunEvent, entry_id=entry.id, run=run)

    # ------------------------------------------------------------ the turn

    async def _turn(self, text: str, images: Sequence[ImageBlock] = ()) -> TurnEndEvent:
        turn_id = f"turn-{uuid.uuid4().hex[:12]}"
        self.meter.start_turn()
        verdict = await self.hook_points.before_prompt(PromptCheck(self.hook_place(turn_id), text))
        if verdict.block or verdict.halt is not None:  # the prompt is not logged: never seen
            return self._finish(turn_id, "hook_stopped")
        entry = self._log_user(text, turn_id, images=images)
        if verdict.context:
            self._log_injection(Injection(verdict.context, "note", HOOK_LABEL), turn_id)
        if self.title is None and (title := title_from_prompt(text)):
            self.store.append(CheckpointEntry, TitleCheckpoint(title=title, source="prompt"))
            self.title = title
            self._title_prompt = text if self.config.model_titles else None
        # The status comes first: a client that sees nothing else still learns, from the first
        # event, whether a real model answers or the scripted demo does.
        note = DEMO_NOTE if self.config.demo and not self._announced else None
        self._announced = True
        self._emit_status("streaming", note)
        self._warm_code_index()
        self.events.emit(
            TurnStartEvent, turn_id=turn_id, prompt=text, entry_id=entry.id, images=list(images)
        )
        step = StepRunner(self._step_deps(), StepState(turn_id, self._cancel))
        try:
            reason = await self._steps(step)
            return self._finish(turn_id, reason)
        except asyncio.CancelledError:
            if not self._abort_requested:
                raise
            _uncancel()
            step.close_unanswered("aborted: the turn was stopped before this tool ran")
            return self._finish(turn_id, "aborted")
        except ProviderError as exc:
            self.events.emit(ErrorEvent, code=type(exc).__name__, message=str(exc), turn_id=turn_id)
            return self._finish(turn_id, "error", error=str(exc))

    def _step_deps(self) -> StepDeps:
        return StepDeps(
            config=self.config,
            provider=lambda: self.provider,
            store=self.store,
            tools=self.tools,
            modes=self.modes,
            gate=self.gate,
            events=self.events,
            meter=self.meter,
            projector=self.projector,
            hook_points=self.hook_points,
            usage_log=self.usage_log,
            known_contexts=self.known_contexts,
            mode=lambda: self.mode,
            system=self.system_sections,
            hook_place=self.hook_place,
            inject=self.inject,
            follow_up=self.follow_up,
            status=self.emit_status,
        )

    async def _steps(self, step: StepRunner) -> TurnEndReason:
        continued = 0
        turn_id = step.state.turn_id
        for _ in range(self.config.max_steps):
            self._drain_steering(turn_id)
            message = await step.request()
            if not message.tool_calls:
                verdict = await lifecycle.go_on(
                    self, turn_id, continued, self.config.max_stop_continuations
                )
                if verdict.halt is not None:
                    return "hook_stopped"
                if not verdict.block:
                    return "completed"
                continued += 1
                reason = verdict.reason or "a Stop hook asked the agent to go on"
                self._log_injection(Injection(reason, "note", "Stop hook"), turn_id)
                continue
            await step.run_tools(message)
            if step.state.halted:
                return "hook_stopped"
            if self.meter.fraction >= 1.0:
                await self.compact("overflow")  # emergency tier: a completed tool cycle
        return "max_steps"

    def _drain_steering(self, turn_id: str) -> None:
        """Log what waits in the inbox, in arrival order, right before the request that
        carries it; only then is a steer admitted."""
        for item in self.inbox.drain():
            if isinstance(item, Injection):
                self._log_injection(item, turn_id)
            else:
                entry = self._log_user(
                    item.text, turn_id, steer_id=item.steer_id, images=item.images
                )
                self.inbox.admitted(item, entry.id, turn_id)

    def _log_user(
        self,
        text: str,
        turn_id: str | None,
        *,
        steer_id: str | None = None,
        context: InjectedContext | None = None,
        images: Sequence[ImageBlock] = (),
    ) -> MessageEntry:
        message = UserMessage(content=[TextBlock(text=text), *images])
        details = MessageDetails(
            message=message, turn_id=turn_id, steer_id=steer_id, context=context
        )
        entry = self.store.append(MessageEntry, details)
        self.meter.grow(text)
        return entry

    def _log_injection(self, item: Injection, turn_id: str | None) -> str:
        text = context_text(item.text, item.kind, item.label)
        context = InjectedContext(kind=item.kind, label=item.label)
        entry = self._log_user(text, turn_id, context=context)
        self.events.emit(
            ContextInjectedEvent,
            entry_id=entry.id,
            kind=item.kind,
            label=item.label,
            text=item.text,
            turn_id=turn_id,
        )
        return entry.id

    def _finish(
        self, turn_id: str, reason: TurnEndReason, error: str | None = None
    ) -> TurnEndEvent:
        checkpoint = None
        last = self.store.branch()[-1:] if reason == "completed" else []
        if last and isinstance(last[0], MessageEntry):
            message = last[0].details.message
            if message.role == "assistant":
                checkpoint = self.modes[self.mode].on_turn_end(message, self.mode_context())
        if checkpoint is not None:
            self.store.append(CheckpointEntry, checkpoint)
        for item in self.inbox.turn_ended(turn_id, reason):
            self._log_injection(item, None)  # what no request carried waits in the log
        self.store.sync()
        end = self.events.emit(
            TurnEndEvent, turn_id=turn_id, reason=reason, usage=self.meter.turn, error=error
        )
        self._emit_status("error" if reason == "error" else "idle")
        return end

    async def after_turn(self) -> None:
        """The default compaction tier: between turns, above the threshold."""
        if isinstance(self.compactor, ObservingCompactor):
            self.compactor.observe(self.store.branch())  # the per-entry work, as it arrives
        if self.compactor and self.compactor.should_compact(
            self.meter.context_tokens, self.meter.context_window
        ):
            await self.compact("threshold")

    # ------------------------------------------------------------ helpers

    def _track_asks(self, event: Event) -> None:
        """While a permission question is open the agent is waiting; from a tool call to its
        result it runs a tool; otherwise, in a turn, it streams."""
        if isinstance(event, ToolCallEvent):
            self._tool_open = True
            self._emit_status("running_tool")
        elif isinstance(event, ToolResultEvent):
            self._tool_open = False
            if not self._asking and self.running:
                self._emit_status("streaming")
        elif isinstance(event, PermissionRequestEvent):
            self._asking.add(event.request_id)
            self._emit_status("waiting_for_permission")
        elif isinstance(event, PermissionResolvedEvent) and event.request_id in self._asking:
            self._asking.discard(event.request_id)
            if not self._asking and self.running:
                self._emit_status("running_tool" if self._tool_open else "streaming")

    def _emit_status(self, status: AgentStatus, message: str | None = None) -> StatusEvent:
        self.status = status
        return self.events.emit(
            StatusEvent,
            status=status,
            mode=self.mode,
            model=self.provider.model,
            demo=self.config.demo,
            message=message,
            title=self.title,
            diagnostics=list(self.diagnostics),
            goal=self.goal,
            todos=self.todos,
        )

    def _restore_mode(self, default: str) -> str:
        for entry in reversed(self.store.branch()):
            if isinstance(entry, CheckpointEntry) and isinstance(entry.details, ModeCheckpoint):
                return entry.details.mode if entry.details.mode in self.modes else default
        return default


def _folded(branch: Sequence[object], first_kept: str | None) -> int:
    ids = [getattr(e, "id", None) for e in branch]
    return ids.index(first_kept) if first_kept in ids else len(ids)


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()
