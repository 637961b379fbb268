"""ScriptedProvider: plays a script (or a recorded session) so demos and tests run with no key.

Model strings: `scripted/demo` (the bundled `scripts/demo.json`), `scripted/<file.json>` (a
script), `scripted/<file.jsonl>` (replay the assistant side of a recorded session).

A script is JSON (see docs/SCRIPTED.md)::

    {"name": "fix-add",
     "steps": [
       {"text": "Let me look.", "tool_calls": [{"name": "read", "input": {"path": "calc.py"}}]},
       {"thinking": "optional", "text": "...", "delay": 0.5,
        "expect": {"last_tool_result_contains": ["passed", "exit code 0"],
                   "last_tool_is_error": false,
                   "description": "the test run to pass"}}]}

- Each provider call consumes the next step, in order; a step is one assistant reply (thinking,
  then text, then tool calls). Its stop reason is `tool_use` when it has tool calls.
- Tool call ids are `call_<step>_<n>`, both 0-based: the same script gives the same ids.
- `expect` checks the newest tool result in the request. When it does not hold, the reply is
  "[scripted demo] expected …, but the last tool result was: …" and the turn ends
  (`end_turn`) instead of going on blindly; the step counts as played.
- `last_tool_result_contains` is a string or a list of strings that must all occur.
- After the last step every call answers "[scripted demo] script finished" and ends the turn.
- Text streams in a few chunks; `delay` (seconds, default 0) is spread over them (a pause that
  oversleeps shortens the next ones, so the chunks take `delay` in all). Usage is estimated at
  four characters a token so context gauges move; cost is zero.
- A replayed session plays each recorded assistant message verbatim, ids included.
- Resuming continues the script: a new provider starts after the replies this script already
  gave in the request (see `position`), so a restarted kernel plays the next step.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from pydantic import BaseModel

from shard_core.contracts.provider import ModelFamily, ProviderSetup, ProviderSpec
from shard_core.providers.script import (
    ScriptStep,
    demo_script,
    load_script,
    load_session_replies,
    unmet,
)
from shard_core.types import (
    AssistantMessage,
    ContentBlock,
    Message,
    MessageDone,
    ProviderRequest,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    Usage,
)
from shard_core.types.content import StopReason
from shard_core.types.errors import ConfigError

PREFIX = "[scripted demo]"
FINISHED = f"{PREFIX} script finished"
DEFAULT_CONTEXT_WINDOW = 200_000
_CHUNKS = 4
_PIECE = re.compile(r"\S*\s*")
_STEP_OF_CALL = re.compile(r"call_(\d+)_\d+")


class ScriptedProvider:
    """Replies from a list of steps: `ScriptStep`s to build, or recorded messages to replay."""

    name = "scripted"

    def __init__(
        self,
        steps: Sequence[ScriptStep | AssistantMessage],
        *,
        model: str = "script",
        context_window: int = DEFAULT_CONTEXT_WINDOW,
    ) -> None:
        self.model = model
        self.context_window = context_window
        self._steps = list(steps)
        self._replays = any(isinstance(step, AssistantMessage) for step in self._steps)
        self._next = 0
        self._sizes = _JsonSizes()

    @classmethod
    def demo(cls, *, context_window: int = DEFAULT_CONTEXT_WINDOW) -> ScriptedProvider:
        return cls(demo_script().steps, model="demo", context_window=context_window)

    @classmethod
    def from_file(
        cls, path: str | Path, *, context_window: int = DEFAULT_CONTEXT_WINDOW
    ) -> ScriptedProvider:
        script = load_script(Path(path).expanduser())
        return cls(script.steps, model=str(path), context_window=context_window)

    @classmethod
    def from_session(
        cls, path: str | Path, *, context_window: int = DEFAULT_CONTEXT_WINDOW
    ) -> ScriptedProvider:
        replies = load_session_replies(Path(path).expanduser())
        return cls(replies, model=str(path), context_window=context_window)

    @property
    def remaining(self) -> int:
        """Steps not yet played."""
        return len(self._steps) - self._next

    def position(self, messages: Sequence[Message]) -> int:
        """The step after the replies this script already gave in `messages`.

        A resumed session (a restarted kernel, `shard run --resume`, an agent re-attached after
        a kill) holds what was played before, so a new provider continues there. Only this
        script's replies count (their `model` is ours): another model's turns earlier in the
        session are not steps. A reply with tool calls names its step (`call_<step>_<n>`), which
        keeps the count right when compaction folded earlier replies into a summary."""
        position = 0
        for message in messages:
            if not isinstance(message, AssistantMessage) or message.model != self.model:
                continue
            found = None
            if message.tool_calls and not self._replays:  # a replay keeps the recorded ids
                found = _STEP_OF_CALL.fullmatch(message.tool_calls[0].id)
            position = int(found.group(1)) + 1 if found else position + 1
        return position

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        index = self._next = max(self._next, self.position(request.messages))
        stop: StopReason | None = None
        if index >= len(self._steps):
            content: list[ContentBlock] = [TextBlock(text=FINISHED)]
            delay = 0.0
        else:
            self._next += 1
            step = self._steps[index]
            content, delay = _play(step, index, request)
            stop = step.stop_reason if isinstance(step, ScriptStep) else None
        deltas = [d for block in content for d in _deltas(block)]
        pause = delay / len(deltas) if deltas else 0.0
        late = 0.0  # what the pauses so far overslept: asyncio sleeps at millisecond granularity
        for delta in deltas:
            began = time.monotonic()
            await asyncio.sleep(max(0.0, pause - late))  # also a cancellation point between chunks
            late = max(0.0, late + time.monotonic() - began - pause)
            yield delta
        has_calls = any(isinstance(b, ToolCallBlock) for b in content)
        usage = _estimate(request, content, self._sizes)
        message = AssistantMessage(
            content=content,
            model=self.model,
            stop_reason=stop or ("tool_use" if has_calls else "end_turn"),
            usage=usage,
        )
        yield MessageDone(message=message, usage=usage)


def _play(
    step: ScriptStep | AssistantMessage, index: int, request: ProviderRequest
) -> tuple[list[ContentBlock], float]:
    """The content of step `index` (or the unmet-expectation note) and its delay."""
    if isinstance(step, AssistantMessage):
        return list(step.content), 0.0
    if step.expect is not None and (why := unmet(step.expect, request.messages)) is not None:
        return [TextBlock(text=f"{PREFIX} {why}")], 0.0
    content: list[ContentBlock] = []
    if step.thinking:
        content.append(ThinkingBlock(thinking=step.thinking))
    if step.text:
        content.append(TextBlock(text=step.text))
    for n, call in enumerate(step.tool_calls):
        content.append(ToolCallBlock(id=f"call_{index}_{n}", name=call.name, input=call.input))
    return content, step.delay


def _deltas(block: ContentBlock) -> list[StreamEvent]:
    if isinstance(block, TextBlock):
        return [TextDelta(text=chunk) for chunk in _chunks(block.text)]
    if isinstance(block, ThinkingBlock):
        return [ThinkingDelta(text=chunk) for chunk in _chunks(block.thinking)]
    if isinstance(block, ToolCallBlock):
        arguments = json.dumps(block.input)
        return [ToolCallDelta(id=block.id, name=block.name, partial_json=arguments)]
    return []


def _chunks(text: str) -> list[str]:
    """About `_CHUNKS` word-aligned pieces that join back to `text`."""
    pieces = [p for p in _PIECE.findall(text) if p]
    size = max(1, math.ceil(len(pieces) / _CHUNKS))
    return ["".join(pieces[i : i + size]) for i in range(0, len(pieces), size)]


class _JsonSizes:
    """JSON lengths of the request's messages and tools, remembered for the next request.

    The loop hands the same message objects again and again (its projection is cached), so
    each is serialised once instead of once a request; the cache holds only the objects of the
    latest request (and references them, so an `id` is never reused while it is held)."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[BaseModel, int]] = {}

    def total(self, items: Sequence[BaseModel]) -> int:
        held, fresh, total = self._held, dict[int, tuple[BaseModel, int]](), 0
        for item in items:
            hit = held.get(id(item))
            if hit is None or hit[0] is not item:
                hit = (item, len(item.model_dump_json()))
            fresh[id(item)] = hit
            total += hit[1]
        self._held = fresh
        return total


def _estimate(request: ProviderRequest, content: list[ContentBlock], sizes: _JsonSizes) -> Usage:
    """Four characters a token: rough, but it moves context gauges the way a model would."""
    sent = sum(len(s.text) for s in request.system)
    sent += sizes.total([*request.messages, *request.tools])
    produced = sum(len(b.model_dump_json()) for b in content)
    return Usage(input_tokens=sent // 4, output_tokens=max(1, produced // 4))


def _build(setup: ProviderSetup) -> ScriptedProvider:
    window = setup.context_window
    if setup.model == "demo":
        return ScriptedProvider.demo(context_window=window)
    path = Path(setup.model).expanduser()
    if not path.is_file():
        raise ConfigError(f"scripted model: no script file at {path}")
    if path.suffix == ".jsonl":
        return ScriptedProvider.from_session(path, context_window=window)
    return ScriptedProvider.from_file(path, context_window=window)


SPEC = ProviderSpec(
    prefix="scripted",
    build=_build,
    families=(ModelFamily("", context_window=DEFAULT_CONTEXT_WINDOW),),
    forms=("scripted/demo, scripted/<script.json> or scripted/<session.jsonl>",),
)
"""Never the default model: the demo plays only where it is asked for by name."""
