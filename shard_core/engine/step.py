"""StepRunner: one model → tools step of a turn — the request (streamed, retried) and the tools.

It runs with `StepDeps`, what the session hands over and the step never replaces (pydantic-ai's
GraphAgentDeps, pi-mono's AgentLoopConfig: what the session decides, its mode, system prompt and
injected context, comes through callbacks), and `StepState`, what the turn's steps change as
they go (GraphAgentState). It never sees the session itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from pydantic import ValidationError

from shard_core.contracts import (
    Mode,
    PermissionGate,
    PermissionQuery,
    Provider,
    ToolContext,
    tool_spec,
)
from shard_core.contracts.provider import WireOptions
from shard_core.contracts.tool import Tool, tool_kind
from shard_core.engine.compaction import live_context
from shard_core.engine.events import EventStream
from shard_core.engine.hook_points import (
    HOOK_LABEL,
    HookPlace,
    HookPoints,
    ToolCheck,
    ToolDone,
    ToolReturned,
)
from shard_core.engine.projection import Projector
from shard_core.engine.prompt import system_hash, tools_hash
from shard_core.engine.registry import ToolRegistryImpl
from shard_core.engine.session_config import SessionConfig
from shard_core.engine.session_store import SessionStore
from shard_core.engine.tool_updates import ToolUpdates
from shard_core.engine.usage import UsageMeter
from shard_core.engine.usage_history import UsageLog
from shard_core.protocol.events import (
    MessageCompleteEvent,
    MessageDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
    UsageEvent,
)
from shard_core.types import (
    AssistantMessage,
    CheckpointEntry,
    ContextCheckpoint,
    ContextKind,
    JsonObject,
    MessageDetails,
    MessageDone,
    MessageEntry,
    ProviderRequest,
    RequestRecord,
    SkillCheckpoint,
    SystemSection,
    TextDelta,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultDetails,
    ToolResultEntry,
    ToolSpec,
    Usage,
)
from shard_core.types.errors import ProviderError, ProviderRequestError, ProviderRetryableError


@dataclass(frozen=True, kw_only=True)
class StepDeps:
    """What the steps of a turn run with and never replace."""

    config: SessionConfig
    provider: Callable[[], Provider]
    """the provider now (a prompt command's model answers until its turn ends)"""
    store: SessionStore
    tools: ToolRegistryImpl
    modes: Mapping[str, Mode]
    gate: PermissionGate
    events: EventStream
    meter: UsageMeter
    projector: Projector
    hook_points: HookPoints
    usage_log: UsageLog
    known_contexts: set[tuple[str, str]]
    """the (system, tools) hashes already logged: each combination is logged once"""
    mode: Callable[[], str]
    """the session's mode now (a tool may change it during a turn)"""
    system: Callable[[], list[SystemSection]]
    """the system prompt now (its sections follow the branch and the mode)"""
    hook_place: Callable[[str | None], HookPlace]
    inject: Callable[[str, ContextKind, str | None], str | None]
    """context for the next request (during a turn: logged before it)"""
    follow_up: Callable[[Coroutine[Any, Any, None]], object]
    """work beside the turn, cancelled when the agent closes"""
    status: Callable[[str], object]
    """a status line for every client"""


@dataclass
class StepState:
    """What the steps of one turn change as they go."""

    turn_id: str
    cancel: asyncio.Event
    unanswered: list[ToolCallBlock] = field(default_factory=list[ToolCallBlock])
    """the last message's calls that have no result yet"""
    running: tuple[ToolCallBlock, float] | None = None
    """the call whose tool is executing now, and when it started (monotonic s)"""
    halted: str | None = None
    """why a tool hook ended the turn (`continue: false`); the rest of the calls do not run"""


class StepRunner:
    def __init__(self, deps: StepDeps, state: StepState) -> None:
        self.deps = deps
        self.state = state

    # ------------------------------------------------------------ the request

    async def request(self) -> AssistantMessage:
        s = self.deps
        specs = [tool_spec(t) for t in s.modes[s.mode()].filter_tools(s.tools.tools())]
        system = s.system()
        branch = s.store.branch()
        _, kept = live_context(branch)
        # Every part is an already-validated model: re-validating the whole history on each
        # step would make a step's cost grow with the length of the session.
        request = ProviderRequest.model_construct(
            model=s.provider().model,
            system=system,
            messages=s.projector.messages(kept),
            tools=specs,
            max_tokens=s.config.max_tokens,
            temperature=s.config.temperature,
        )
        leaf = branch[-1].id if branch else None
        record = self._record_context(system, specs, request, leaf)
        message, usage = await self._with_retry(request)
        entry = s.store.append(
            MessageEntry,
            MessageDetails(message=message, request=record, turn_id=self.state.turn_id),
        )
        s.events.emit(
            MessageCompleteEvent, turn_id=self.state.turn_id, entry_id=entry.id, message=message
        )
        s.meter.record(usage)
        self._log_usage(usage, entry.id)
        s.events.emit(
            UsageEvent,
            turn_id=self.state.turn_id,
            request=usage,
            turn=s.meter.turn,
            total=s.meter.total,
            context_tokens=s.meter.context_tokens,
            context_window=s.meter.context_window,
        )
        self.state.unanswered = list(message.tool_calls)
        return message

    def _log_usage(self, usage: Usage, entry_id: str) -> None:
        s = self.deps
        try:
            s.usage_log.record(s.provider(), usage, turn_id=self.state.turn_id, entry_id=entry_id)
        except OSError as exc:  # a report, not the session: never end a turn over it
            s.status(f"usage history not written: {exc}")

    def _record_context(
        self,
        system: list[SystemSection],
        specs: list[ToolSpec],
        request: ProviderRequest,
        leaf: str | None,
    ) -> RequestRecord:
        """Log the system prompt and tool set the first time each combination is used, and
        return every parameter the request reaches the provider with."""
        s = self.deps
        sys_hash, tool_hash = system_hash(system), tools_hash(specs)
        if not s.known_contexts:
            s.known_contexts.update(
                (e.details.system_hash, e.details.tools_hash)
                for e in s.store.entries
                if isinstance(e, CheckpointEntry) and isinstance(e.details, ContextCheckpoint)
            )
        if (sys_hash, tool_hash) not in s.known_contexts:
            s.known_contexts.add((sys_hash, tool_hash))
            s.store.append(
                CheckpointEntry,
                ContextCheckpoint(
                    system_hash=sys_hash,
                    system=[x.model_dump() for x in system],
                    tools_hash=tool_hash,
                    tools=[t.model_dump() for t in specs],
                ),
            )
        provider = s.provider()
        options = provider.wire_options() if isinstance(provider, WireOptions) else {}
        return RequestRecord(
            model=provider.model,
            system_hash=sys_hash,
            tools_hash=tool_hash,
            turn_id=self.state.turn_id,
            provider=provider.name,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            leaf_id=leaf,
            options=dict(options),
        )

    async def _with_retry(self, request: ProviderRequest) -> tuple[AssistantMessage, Usage]:
        policy = self.deps.config.retry
        attempt = 0
        while True:
            try:
                return await self._stream(request)
            except ProviderRetryableError as exc:
                delay = policy.delay(attempt, exc)
                if delay is None:
                    raise
                attempt += 1
                self.deps.status(
                    f"provider unavailable ({exc}); retry {attempt} of "
                    f"{policy.attempts - 1} in {delay:.1f}s"
                )
                await asyncio.sleep(delay)

    async def _stream(self, request: ProviderRequest) -> tuple[AssistantMessage, Usage]:
        provider = self.deps.provider()
        try:
            async for event in provider.stream(request):
                if isinstance(event, MessageDone):
                    return self._done(event)
                self._emit_delta(event)
        except (ProviderError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a provider bug must end the turn with an error, not a crash
            raise ProviderRequestError(f"provider {provider.name} failed: {exc!r}") from exc
        raise ProviderRetryableError("the provider's stream ended before the message was complete")

    def _done(self, event: MessageDone) -> tuple[AssistantMessage, Usage]:
        """The reply, named for the model, costed at the model's price when there is one."""
        s = self.deps
        message, usage = event.message, event.usage
        update: dict[str, object] = {}
        if message.model is None:
            update["model"] = s.provider().model
        if (price := s.config.price) is not None:
            usage = usage.model_copy(update={"cost_usd": price.cost(usage)})
            if message.usage is not None:
                update["usage"] = message.usage.model_copy(
                    update={"cost_usd": price.cost(message.usage)}
                )
        return (message.model_copy(update=update) if update else message), usage

    def _emit_delta(self, event: TextDelta | ThinkingDelta | ToolCallDelta) -> None:
        emit = self.deps.events.emit
        if isinstance(event, TextDelta):
            emit(MessageDeltaEvent, turn_id=self.state.turn_id, channel="text", delta=event.text)
        elif isinstance(event, ThinkingDelta):
            emit(
                MessageDeltaEvent, turn_id=self.state.turn_id, channel="thinking", delta=event.text
            )
        else:
            emit(
                MessageDeltaEvent,
                turn_id=self.state.turn_id,
                channel="tool_call",
                delta=event.partial_json,
                tool_call_id=event.id,
            )

    # ------------------------------------------------------------ the tools

    async def run_tools(self, message: AssistantMessage) -> None:
        """Run the calls in the model's order; each result is logged before the next starts."""
        for call in message.tool_calls:
            tool = self.deps.tools.get(call.name)
            self.deps.events.emit(
                ToolCallEvent,
                turn_id=self.state.turn_id,
                call=call,
                read_only=bool(tool and tool.read_only),
                kind=tool_kind(tool),
            )
            if self.state.halted is not None:
                self._log_result(call, ToolResult.error(f"not run: {self.state.halted}"), None)
                continue
            started, since = time.monotonic(), time.time()
            check = self._check(call)
            result = await self._hooked(call, check)
            await self._returned(check, tool, result, since)
            self._log_result(call, result, (time.monotonic() - started) * 1000)
            after = await self.deps.hook_points.after_tool(ToolDone(check, result))
            if after.context:
                self.deps.inject(after.context, "note", HOOK_LABEL)
            self.state.halted = self.state.halted or after.halt

    async def _returned(
        self, check: ToolCheck, tool: Tool | None, result: ToolResult, since: float
    ) -> None:
        """The `tool_returned` handlers (the code index announces changed files there)."""
        d = self.deps
        returned = ToolReturned(
            check,
            result,
            read_only=tool is None or tool.read_only,
            since=since,
            code_index=d.config.code_index,
            emit=d.events.emit,
            follow_up=d.follow_up,
            inject=d.inject,
        )
        await d.hook_points.tool_returned(returned)

    def _check(self, call: ToolCallBlock) -> ToolCheck:
        return ToolCheck(self.deps.hook_place(self.state.turn_id), call.name, call.input, call.id)

    async def _hooked(self, call: ToolCallBlock, check: ToolCheck) -> ToolResult:
        """The `before_tool` handlers, then the call (with the input they changed, if any)."""
        verdict = await self.deps.hook_points.before_tool(check)
        if verdict.halt is not None:
            self.state.halted = verdict.halt
            return ToolResult.error(f"not run: {verdict.halt}")
        if verdict.block:
            return ToolResult.error(f"blocked by a hook: {verdict.reason or 'no reason given'}")
        return await self._execute(call, verdict.updated_input)

    async def _execute(self, call: ToolCallBlock, changed: JsonObject | None = None) -> ToolResult:
        s = self.deps
        arguments = call.input if changed is None else changed
        tool = s.tools.get(call.name)
        if tool is None:
            known = ", ".join(t.name for t in s.tools.tools())
            return ToolResult.error(f"unknown tool {call.name!r}; available tools: {known}")
        if tool not in s.modes[s.mode()].filter_tools(s.tools.tools()):
            return ToolResult.error(f"tool {call.name!r} is not available in {s.mode()} mode")
        if "_raw_arguments" in arguments:
            return ToolResult.error(f"the arguments for {call.name} were not valid JSON")
        updates = ToolUpdates(lambda partial: self._emit_update(call, partial))
        ctx = ToolContext(
            cwd=s.config.cwd,
            roots=s.config.roots,
            agent_id=s.config.agent_id,
            session_id=s.store.session_id,
            call_id=call.id,
            cancel=self.state.cancel,
            on_update=updates.push,
            code_index=s.config.code_index,
            files=s.config.files,
        )
        query = PermissionQuery(
            tool=call.name,
            input=arguments,
            read_only=tool.read_only,
            cwd=s.config.cwd,
            call_id=call.id,
            turn_id=self.state.turn_id,
            agent_id=s.config.agent_id,
            context=ctx,
        )
        outcome = await s.gate.authorize(query)
        if outcome.decision.kind == "deny":
            return ToolResult.error(f"permission denied: {outcome.decision.reason}")
        if outcome.reach:  # an explicitly allowed path outside the workspace: exactly that one
            ctx = replace(ctx, roots=[*ctx.roots, *outcome.reach])
        self.state.running = (call, time.monotonic())
        try:
            result = await tool.execute(arguments, ctx)
        except asyncio.CancelledError:
            raise  # `_running` stays set: close_unanswered says how long the tool had run
        except Exception as exc:  # a tool's bug is the model's information, not the loop's end
            result = ToolResult.error(f"tool {call.name} failed: {type(exc).__name__}: {exc}")
        finally:
            updates.close()  # nothing held goes out after the result: the result wins
        self.state.running = None
        return result

    def _emit_update(self, call: ToolCallBlock, partial: ToolResult) -> None:
        """A running tool's partial state for clients (redacted like its result; not logged)."""
        s = self.deps
        s.events.emit(
            ToolUpdateEvent,
            turn_id=self.state.turn_id,
            tool_call_id=call.id,
            name=call.name,
            partial=s.config.secrets.redact_result(partial),
        )

    def _log_result(self, call: ToolCallBlock, result: ToolResult, ms: float | None) -> None:
        s = self.deps
        # A secret that reached a tool's output (a passed-through variable, a file the tool
        # read) goes no further: not into the log, not to the model, not to any client.
        result = s.config.secrets.redact_result(result)
        entry = s.store.append(
            ToolResultEntry,
            ToolResultDetails(
                tool_call_id=call.id,
                name=call.name,
                result=result,
                duration_ms=ms,
                turn_id=self.state.turn_id,
            ),
        )
        intent = result.details.get("checkpoint")
        if isinstance(intent, dict) and not result.is_error:
            self._persist_intent(cast(JsonObject, intent), entry.id)
        if call in self.state.unanswered:
            self.state.unanswered.remove(call)
        s.meter.grow(result.text)
        s.events.emit(
            ToolResultEvent,
            turn_id=self.state.turn_id,
            tool_call_id=call.id,
            name=call.name,
            entry_id=entry.id,
            result=result,
        )

    def _persist_intent(self, intent: JsonObject, result_id: str) -> None:
        """A tool's checkpoint intent (`details["checkpoint"]`), linked to its result. Only a
        skill activation: a tool must not be able to write a mode or a plan."""
        try:
            checkpoint = SkillCheckpoint.model_validate({**intent, "source_entry_id": result_id})
        except ValidationError:
            return  # not an intent a tool may emit; the result itself is logged already
        self.deps.store.append(CheckpointEntry, checkpoint)

    @property
    def unanswered(self) -> list[ToolCallBlock]:
        return list(self.state.unanswered)

    def expect(self, calls: list[ToolCallBlock]) -> None:
        """Calls that still need a result (recovery after a crash)."""
        self.state.unanswered = list(calls)

    def close_unanswered(self, text: str) -> None:
        """Give every call of the last message that has no result a synthetic aborted one.

        `text` is for calls that never started; the one whose tool was running says so, with
        how long it had run."""
        running, started = self.state.running or (None, 0.0)
        self.state.running = None
        for call in list(self.state.unanswered):
            if call is running:
                elapsed = time.monotonic() - started
                result = ToolResult.error(
                    f"stopped while running ({elapsed:.1f} s)",
                    aborted=True,
                    elapsed_s=round(elapsed, 1),
                )
                self._log_result(call, result, elapsed * 1000)
            else:
                self._log_result(call, ToolResult.error(text, aborted=True), None)
