"""Hook points: events whose handlers the loop awaits and whose answers it uses.

An extension subscribes with `api.on(BEFORE_TOOL, fn)` like any event; the loop looks the
handlers up by name (no second registration path) and awaits them in registration order. A
handler returns a `HookVerdict` (or None: no opinion); each point reads the fields it names:

- `BEFORE_PROMPT` `fn(PromptCheck)`: `block` refuses the prompt (it is not logged, `reason`
  is shown); `context` goes into the first request.
- `BEFORE_TOOL` `fn(ToolCheck)`, before the permission gate: `block` refuses the call (its
  `reason` is the model's result); `updated_input` replaces the input, and the gate judges the
  changed input. Nothing a handler says loosens the gate.
- `TOOL_RETURNED` `fn(ToolReturned)`, when the tool returned, before its result is logged or
  shown: what a handler emits goes out before the `tool_result` (the code index announces the
  files a tool changed, so an index is current when the result is shown); its answer is not
  used.
- `AFTER_TOOL` `fn(ToolDone)`, after a result is logged: `context` (or a plain string) is
  injected into the next request.
- `BEFORE_STOP` `fn(StopCheck)`, when the model stops asking for tools: `block` makes the
  agent go on, with `reason` as its next instruction (bounded: `max_stop_continuations`).
- `BEFORE_COMPACT` `fn(CompactCheck)`: awaited before compaction; its answer is not used.
- `SESSION_START` / `SESSION_END` `fn(SessionCheck)`: when the agent is assembled and when it
  closes; a start's `context` goes into the next request.
- `BEFORE_ASK` `fn(AskCheck)`, when the gate would ask a person: `allow` or `block` answers the
  question (once); None asks as usual. Only a question is answered: a deny rule has already
  decided, and a rule that always asks is still asked.
- `AFTER_TURN` `fn(TurnDone) -> str | None`, after a turn ended (and the between-turns
  compaction ran): text is the prompt of one more turn in the same run (goal.continue); the
  first handler that answers wins.

Every point honours `halt` (Claude Code's `continue: false`): the turn ends after it, with
reason `hook_stopped`. A handler that raises decides nothing (the gate still decides).
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.engine.extension_events import Handler
from shard_core.protocol.events import TurnEndEvent
from shard_core.types import ContextKind, HookRunCheckpoint, JsonObject, ToolResult, Usage

log = logging.getLogger("shard.extensions")

BEFORE_PROMPT = "before_prompt"
BEFORE_TOOL = "before_tool"
TOOL_RETURNED = "tool_returned"
AFTER_TOOL = "after_tool"
BEFORE_STOP = "before_stop"
BEFORE_COMPACT = "before_compact"
SESSION_START = "session_start"
SESSION_END = "session_end"
BEFORE_ASK = "before_ask"
AFTER_TURN = "after_turn"

HOOK_LABEL = "hook"
"""the label of the context a hook added (what the model and the transcript see)"""


@dataclass(frozen=True)
class HookPlace:
    """Where a hook point fires: the facts every hook's input carries."""

    session_id: str
    transcript_path: str
    cwd: str
    turn_id: str | None = None
    parent_agent_id: str | None = None
    """set for a subagent (its Stop is a SubagentStop)"""
    agent_id: str = ""
    report: Callable[[HookRunCheckpoint], None] | None = field(
        default=None, compare=False, repr=False
    )
    """logs a command hook's run and shows it to every client (`hook_run`)"""


@dataclass(frozen=True)
class HookVerdict:
    block: bool = False
    reason: str = ""
    updated_input: JsonObject | None = None
    context: str | None = None
    allow: bool = False
    halt: str | None = None
    """end the turn after this point; the text says why (None: go on)"""


@dataclass(frozen=True)
class PromptCheck:
    place: HookPlace
    prompt: str


@dataclass(frozen=True)
class ToolCheck:
    place: HookPlace
    tool: str
    input: JsonObject
    call_id: str


@dataclass(frozen=True)
class ToolReturned:
    """A tool returned (or was refused): its result is not logged or shown yet."""

    check: ToolCheck
    result: ToolResult
    read_only: bool
    """the tool changes nothing (an unknown tool neither)"""
    since: float
    """when the call started (seconds since the epoch)"""
    code_index: CodeIntelligenceProvider | None
    """the session's code intelligence (what `ctx.code_index` is)"""
    emit: Callable[..., object] = field(compare=False, repr=False)
    """the session's `EventStream.emit`"""
    follow_up: Callable[[Coroutine[Any, Any, None]], object] = field(compare=False, repr=False)
    """runs work beside the turn (cancelled when the agent closes); it reports by `inject`"""
    inject: Callable[[str, ContextKind, str | None], object] = field(compare=False, repr=False)
    """context the next request carries (`AgentSession.inject`)"""


@dataclass(frozen=True)
class ToolDone:
    check: ToolCheck
    result: ToolResult


@dataclass(frozen=True)
class StopCheck:
    place: HookPlace
    active: bool
    """True when the agent already went on because of a stop handler this turn"""


@dataclass(frozen=True)
class CompactCheck:
    place: HookPlace
    trigger: Literal["manual", "auto"]
    reason: str


@dataclass(frozen=True)
class SessionCheck:
    place: HookPlace
    source: str
    """start: startup or resume; end: why it closes (other, exit)"""


@dataclass(frozen=True)
class AskCheck:
    place: HookPlace
    tool: str
    input: JsonObject
    call_id: str | None
    prompt: str


@dataclass(frozen=True)
class TurnDone:
    """A run's turn ended: the turn, and the run so far (the person's prompt and every turn
    an `after_turn` handler added since)."""

    end: TurnEndEvent
    turns: int
    usage: Usage
    seconds: float


class HookPoints:
    """The handlers of the hook points among `handlers` (a live list: later ones count)."""

    def __init__(self, handlers: Sequence[Handler] = ()) -> None:
        self._handlers = handlers

    def _for(self, event: str) -> list[Handler]:
        return [h for h in self._handlers if h.event == event]

    async def _verdicts(self, event: str, value: Any) -> list[HookVerdict]:
        found: list[HookVerdict] = []
        for entry in self._for(event):
            answer = await _call(entry, value)
            if isinstance(answer, str) and answer.strip():
                answer = HookVerdict(context=answer)
            if isinstance(answer, HookVerdict):
                found.append(answer)
                if answer.block or answer.halt is not None:
                    break
        return found

    async def before_tool(self, check: ToolCheck) -> HookVerdict:
        current = check
        updated: JsonObject | None = None
        for entry in self._for(BEFORE_TOOL):
            verdict = await _call(entry, current)
            if not isinstance(verdict, HookVerdict):
                continue
            if verdict.block or verdict.halt is not None:
                return dataclasses.replace(verdict, updated_input=None)
            if verdict.updated_input is not None:
                updated = verdict.updated_input
                current = dataclasses.replace(current, input=updated)
        return HookVerdict(updated_input=updated)

    async def tool_returned(self, returned: ToolReturned) -> None:
        for entry in self._for(TOOL_RETURNED):
            await _call(entry, returned)

    async def after_tool(self, done: ToolDone) -> HookVerdict:
        return _joined(await self._verdicts(AFTER_TOOL, done))

    async def before_prompt(self, check: PromptCheck) -> HookVerdict:
        return _joined(await self._verdicts(BEFORE_PROMPT, check))

    async def before_stop(self, check: StopCheck) -> HookVerdict:
        return _joined(await self._verdicts(BEFORE_STOP, check))

    async def before_compact(self, check: CompactCheck) -> HookVerdict:
        return _joined(await self._verdicts(BEFORE_COMPACT, check))

    async def session_start(self, check: SessionCheck) -> HookVerdict:
        return _joined(await self._verdicts(SESSION_START, check))

    async def session_end(self, check: SessionCheck) -> None:
        await self._verdicts(SESSION_END, check)

    async def before_ask(self, check: AskCheck) -> HookVerdict | None:
        """The first handler's allow or block; None when none answers."""
        for entry in self._for(BEFORE_ASK):
            verdict = await _call(entry, check)
            if isinstance(verdict, HookVerdict) and (verdict.allow or verdict.block):
                return verdict
        return None

    async def after_turn(self, done: TurnDone) -> str | None:
        for entry in self._for(AFTER_TURN):
            text = await _call(entry, done)
            if isinstance(text, str) and text.strip():
                return text
        return None


def _joined(verdicts: list[HookVerdict]) -> HookVerdict:
    """One answer: the last verdict's block, reason and halt; every context, in order."""
    if not verdicts:
        return HookVerdict()
    contexts = [v.context.strip() for v in verdicts if v.context and v.context.strip()]
    last = verdicts[-1]
    return dataclasses.replace(last, context="\n\n".join(contexts) or None)


async def _call(entry: Handler, value: Any) -> Any:
    try:
        result = entry.handler(value)
        if inspect.isawaitable(result):
            result = await result
        return result
    except Exception as exc:  # a broken hook decides nothing; the gate still does
        log.warning("extension %s: %s handler failed: %s", entry.extension, entry.event, exc)
        return None
