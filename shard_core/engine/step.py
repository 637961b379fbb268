"""StepRunner: one model → tools step of a turn — the request (streamed, retried) and the tools."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from pydantic import ValidationError

from shard_core.contracts import PermissionQuery, ToolContext, tool_spec
from shard_core.contracts.provider import WireOptions
from shard_core.contracts.tool import tool_kind
from shard_core.engine.compaction import live_context
from shard_core.engine.file_changes import announce_changes
from shard_core.engine.hook_points import HOOK_LABEL, ToolCheck, ToolDone
from shard_core.engine.prompt import system_hash, tools_hash
from shard_core.engine.tool_updates import ToolUpdates
from shard_core.engine.usage_history import append_usage, usage_record
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

if TYPE_CHECKING:  # the session owns the runner; only the type is needed here
    from shard_core.engine.session import AgentSession


class StepRunner:
    def __init__(self, session: AgentSession, turn_id: str, cancel: asyncio.Event) -> None:
        self.session = session
        self.turn_id = turn_id
        self.cancel = cancel
        self._unanswered: list[ToolCallBlock] = []
        self._running: tuple[ToolCallBlock, float] | None = None
        """the call whose tool is executing now, and when it started (monotonic s)"""
        self.halted: str | None = None
        """why a tool hook ended the turn (`continue: false`); the rest of the calls do not run"""

    # ------------------------------------------------------------ the request

    async def request(self) -> AssistantMessage:
        s = self.session
        specs = [tool_spec(t) for t in s.modes[s.mode].filter_tools(s.tools.tools())]
        system = s.system_sections()
        branch = s.store.branch()
        _, kept = live_context(branch)
        # Every part is an already-validated model: re-validating the whole history on each
        # step would make a step's cost grow with the length of the session.
        request = ProviderRequest.model_construct(
            model=s.provider.model,
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
            MessageEntry, MessageDetails(message=message, request=record, turn_id=self.turn_id)
        )
        s.events.emit(
            MessageCompleteEvent, turn_id=self.turn_id, entry_id=entry.id, message=message
        )
        s.meter.record(usage)
        self._log_usage(usage, entry.id)
        s.events.emit(
            UsageEvent,
            turn_id=self.turn_id,
            request=usage,
            turn=s.meter.turn,
            total=s.meter.total,
            context_tokens=s.meter.context_tokens,
            context_window=s.meter.context_window,
        )
        self._unanswered = list(message.tool_calls)
        return message

    def _log_usage(self, usage: Usage, entry_id: str) -> None:
        s = self.session
        if s.config.usage_log is None:
            return
        record = usage_record(s, usage, turn_id=self.turn_id, entry_id=entry_id)
        try:
            append_usage(s.config.usage_log, record)
        except OSError as exc:  # a report, not the session: never end a turn over it
            s.emit_status(f"usage history not written: {exc}")

    def _record_context(
        self,
        system: list[SystemSection],
        specs: list[ToolSpec],
        request: ProviderRequest,
        leaf: str | None,
    ) -> RequestRecord:
        """Log the system prompt and tool set the first time each combination is used, and
        return every parameter the request reaches the provider with."""
        s = self.session
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
        options = s.provider.wire_options() if isinstance(s.provider, WireOptions) else {}
        return RequestRecord(
            model=s.provider.model,
            system_hash=sys_hash,
            tools_hash=tool_hash,
            turn_id=self.turn_id,
            provider=s.provider.name,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            leaf_id=leaf,
            options=dict(options),
        )

    async def _with_retry(self, request: ProviderRequest) -> tuple[AssistantMessage, Usage]:
        policy = self.session.config.retry
        attempt = 0
        while True:
            try:
                return await self._stream(request)
            except ProviderRetryableError as exc:
                delay = policy.delay(attempt, exc)
                if delay is None:
                    raise
                attempt += 1
                self.session.emit_status(
                    f"provider unavailable ({exc}); retry {attempt} of "
                    f"{policy.attempts - 1} in {delay:.1f}s"
                )
                await asyncio.sleep(delay)

    async def _stream(self, request: ProviderRequest) -> tuple[AssistantMessage, Usage]:
        s = self.session
        try:
            async for event in s.provider.stream(request):
                if isinstance(event, MessageDone):
                    return self._done(event)
                self._emit_delta(event)
        except (ProviderError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a provider bug must end the turn with an error, not a crash
            raise ProviderRequestError(f"provider {s.provider.name} failed: {exc!r}") from exc
        raise ProviderRetryableError("the provider's stream ended before the message was complete")

    def _done(self, event: MessageDone) -> tuple[AssistantMessage, Usage]:
        """The reply, named for the model, costed at the model's price when there is one."""
        s = self.session
        message, usage = event.message, event.usage
        update: dict[str, object] = {}
        if message.model is None:
            update["model"] = s.provider.model
        if (price := s.config.price) is not None:
            usage = usage.model_copy(update={"cost_usd": price.cost(usage)})
            if message.usage is not None:
                update["usage"] = message.usage.model_copy(
                    update={"cost_usd": price.cost(message.usage)}
                )
        return (message.model_copy(update=update) if update else message), usage

    def _emit_delta(self, event: TextDelta | ThinkingDelta | ToolCallDelta) -> None:
        emit = self.session.events.emit
        if isinstance(event, TextDelta):
            emit(MessageDeltaEvent, turn_id=self.turn_id, channel="text", delta=event.text)
        elif isinstance(event, ThinkingDelta):
            emit(MessageDeltaEvent, turn_id=self.turn_id, channel="thinking", delta=event.text)
        else:
            emit(
                MessageDeltaEvent,
                turn_id=self.turn_id,
                channel="tool_call",
                delta=event.partial_json,
                tool_call_id=event.id,
            )

    # ------------------------------------------------------------ the tools

    async def run_tools(self, message: AssistantMessage) -> None:
        """Run the calls in the model's order; each result is logged before the next starts."""
        for call in message.tool_calls:
            tool = self.session.tools.get(call.name)
            self.session.events.emit(
                ToolCallEvent,
                turn_id=self.turn_id,
                call=call,
                read_only=bool(tool and tool.read_only),
                kind=tool_kind(tool),
            )
            if self.halted is not None:
                self._log_result(call, ToolResult.error(f"not run: {self.halted}"), None)
                continue
            started, since = time.monotonic(), time.time()
            check = self._check(call)
            result = await self._hooked(call, check)
            announce_changes(self.session, self.turn_id, call, result, since)
            self._log_result(call, result, (time.monotonic() - started) * 1000)
            after = await self.session.hook_points.after_tool(ToolDone(check, result))
            if after.context:
                self.session.inject(after.context, "note", HOOK_LABEL)
            self.halted = self.halted or after.halt

    def _check(self, call: ToolCallBlock) -> ToolCheck:
        return ToolCheck(self.session.hook_place(self.turn_id), call.name, call.input, call.id)

    async def _hooked(self, call: ToolCallBlock, check: ToolCheck) -> ToolResult:
        """The `before_tool` handlers, then the call (with the input they changed, if any)."""
        verdict = await self.session.hook_points.before_tool(check)
        if verdict.halt is not None:
            self.halted = verdict.halt
            return ToolResult.error(f"not run: {verdict.halt}")
        if verdict.block:
            return ToolResult.error(f"blocked by a hook: {verdict.reason or 'no reason given'}")
        return await self._execute(call, verdict.updated_input)

    async def _execute(self, call: ToolCallBlock, changed: JsonObject | None = None) -> ToolResult:
        s = self.session
        arguments = call.input if changed is None else changed
        tool = s.tools.get(call.name)
        if tool is None:
            known = ", ".join(t.name for t in s.tools.tools())
            return ToolResult.error(f"unknown tool {call.name!r}; available tools: {known}")
        if tool not in s.modes[s.mode].filter_tools(s.tools.tools()):
            return ToolResult.error(f"tool {call.name!r} is not available in {s.mode} mode")
        if "_raw_arguments" in arguments:
            return ToolResult.error(f"the arguments for {call.name} were not valid JSON")
        updates = ToolUpdates(lambda partial: self._emit_update(call, partial))
        ctx = ToolContext(
            cwd=s.config.cwd,
            roots=s.config.roots,
            agent_id=s.agent_id,
            session_id=s.store.session_id,
            call_id=call.id,
            cancel=self.cancel,
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
            turn_id=self.turn_id,
            agent_id=s.agent_id,
            context=ctx,
        )
        outcome = await s.gate.authorize(query)
        if outcome.decision.kind == "deny":
            return ToolResult.error(f"permission denied: {outcome.decision.reason}")
        if outcome.reach:  # an explicitly allowed path outside the workspace: exactly that one
            ctx = replace(ctx, roots=[*ctx.roots, *outcome.reach])
        self._running = (call, time.monotonic())
        try:
            result = await tool.execute(arguments, ctx)
        except asyncio.CancelledError:
            raise  # `_running` stays set: close_unanswered says how long the tool had run
        except Exception as exc:  # a tool's bug is the model's information, not the loop's end
            result = ToolResult.error(f"tool {call.name} failed: {type(exc).__name__}: {exc}")
        finally:
            updates.close()  # nothing held goes out after the result: the result wins
        self._running = None
        return result

    def _emit_update(self, call: ToolCallBlock, partial: ToolResult) -> None:
        """A running tool's partial state for clients (redacted like its result; not logged)."""
        s = self.session
        s.events.emit(
            ToolUpdateEvent,
            turn_id=self.turn_id,
            tool_call_id=call.id,
            name=call.name,
            partial=s.config.secrets.redact_result(partial),
        )

    def _log_result(self, call: ToolCallBlock, result: ToolResult, ms: float | None) -> None:
        s = self.session
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
                turn_id=self.turn_id,
            ),
        )
        intent = result.details.get("checkpoint")
        if isinstance(intent, dict) and not result.is_error:
            self._persist_intent(cast(JsonObject, intent), entry.id)
        if call in self._unanswered:
            self._unanswered.remove(call)
        s.meter.grow(result.text)
        s.events.emit(
            ToolResultEvent,
            turn_id=self.turn_id,
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
        self.session.store.append(CheckpointEntry, checkpoint)

    @property
    def unanswered(self) -> list[ToolCallBlock]:
        return list(self._unanswered)

    def expect(self, calls: list[ToolCallBlock]) -> None:
        """Calls that still need a result (recovery after a crash)."""
        self._unanswered = list(calls)

    def close_unanswered(self, text: str) -> None:
        """Give every call of the last message that has no result a synthetic aborted one.

        `text` is for calls that never started; the one whose tool was running says so, with
        how long it had run."""
        running, started = self._running or (None, 0.0)
        self._running = None
        for call in list(self._unanswered):
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
