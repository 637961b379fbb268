"""OpenAIProvider: Chat Completions streaming through the official `openai` SDK; with `base_url`
it serves any compatible server (Ollama, vLLM, llama.cpp).

The SDK is imported at the first request, in a worker thread. A client is created per request
with `max_retries=0` and closed when the stream ends: the engine owns retries, and nothing
outlives the event loop that made it.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from shard_core.engine.config import Price
from shard_core.providers.http_errors import connection_error, status_error
from shard_core.providers.models import context_window_for
from shard_core.providers.openai_format import RAW_ARGUMENTS, request_params
from shard_core.providers.pricing import with_cost
from shard_core.providers.sdk import import_off_loop
from shard_core.types import (
    AssistantMessage,
    ContentBlock,
    MessageDone,
    ProviderRequest,
    StopReason,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolCallDelta,
    Usage,
)
from shard_core.types.errors import ProviderAuthError, ProviderError, ProviderRetryableError

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDelta

OFFICIAL_HOST = "api.openai.com"
OFFICIAL_BASE_URL = f"https://{OFFICIAL_HOST}/v1"
# Fields compatible servers stream reasoning in: vLLM/llama.cpp/DeepSeek, then Ollama/OpenRouter.
_REASONING_FIELDS = ("reasoning_content", "reasoning")


class OpenAIProvider:
    """OpenAI models, or any server that speaks Chat Completions at `base_url`."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        context_window: int | None = None,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self.model = model
        self.context_window = context_window or context_window_for(model)
        self._api_key = api_key
        self._base_url = base_url
        self._prices = prices

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        await import_off_loop("openai")
        import httpx2
        import openai

        try:
            # aclosing: a consumer that stops early closes the SDK stream now, not at GC
            async with self._client() as client, aclosing(self._events(client, request)) as events:
                async for event in events:
                    yield event
        except openai.APIStatusError as exc:
            headers = exc.response.headers
            raise status_error(
                self.name, exc.status_code, body=exc.body, headers=headers, fallback=exc.message
            ) from exc
        except (openai.APIConnectionError, httpx2.TransportError) as exc:
            raise connection_error(self.name, exc) from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"{self.name}: {exc}") from exc

    def wire_options(self) -> dict[str, object]:
        """The official API gets `max_completion_tokens`, other servers `max_tokens`."""
        base = self._base_url or os.environ.get("OPENAI_BASE_URL") or OFFICIAL_BASE_URL
        return {"official": urlsplit(base).hostname == OFFICIAL_HOST}

    def _client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, OpenAIError

        try:
            return AsyncOpenAI(api_key=self._api_key, base_url=self._base_url, max_retries=0)
        except OpenAIError as exc:  # raised when no key is given or in the environment
            raise ProviderAuthError(f"{self.name}: {exc}") from exc

    async def _events(
        self, client: AsyncOpenAI, request: ProviderRequest
    ) -> AsyncGenerator[StreamEvent, None]:
        official = bool(self.wire_options()["official"])  # what the log records, by construction
        params = request_params(request, self.model, official=official)
        reply = _Reply()
        stream = await client.chat.completions.create(**params, stream=True)
        async with stream:
            async for chunk in stream:
                for event in reply.add(chunk):
                    yield event
        usage = with_cost(self.model, reply.usage, self._prices)
        message = AssistantMessage(
            content=reply.content(),
            model=self.model,
            stop_reason=reply.stop_reason(),
            usage=usage,
        )
        yield MessageDone(message=message, usage=usage)


@dataclass
class _Call:
    id: str
    name: str = ""
    arguments: str = ""


@dataclass
class _Reply:
    """A streamed reply being put together: text, reasoning, tool calls by index, usage."""

    text: str = ""
    reasoning: str = ""
    calls: dict[int, _Call] = field(default_factory=dict[int, _Call])
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)

    def add(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        if chunk.usage is not None:
            details = chunk.usage.prompt_tokens_details
            cached = (details.cached_tokens if details else None) or 0
            self.usage = Usage(
                input_tokens=max(0, chunk.usage.prompt_tokens - cached),
                output_tokens=chunk.usage.completion_tokens,
                cache_read_tokens=cached,
            )
        events: list[StreamEvent] = []
        for choice in chunk.choices[:1]:
            self.finish_reason = choice.finish_reason or self.finish_reason
            events += self._delta(choice.delta)
        return events

    def _delta(self, delta: ChoiceDelta) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if thought := _reasoning(delta):
            self.reasoning += thought
            events.append(ThinkingDelta(text=thought))
        if delta.content:
            self.text += delta.content
            events.append(TextDelta(text=delta.content))
        for piece in delta.tool_calls or ():
            # Some local servers send no ids: a positional one keeps results matched to calls.
            call = self.calls.setdefault(piece.index, _Call(id=f"call_{piece.index}"))
            call.id = piece.id or call.id
            function = piece.function
            call.name += (function.name or "") if function else ""
            arguments = (function.arguments or "") if function else ""
            call.arguments += arguments
            events.append(ToolCallDelta(id=call.id, name=call.name, partial_json=arguments))
        return events

    def content(self) -> list[ContentBlock]:
        blocks: list[ContentBlock] = []
        if self.reasoning:
            blocks.append(ThinkingBlock(thinking=self.reasoning))
        if self.text:
            blocks.append(TextBlock(text=self.text))
        for _, call in sorted(self.calls.items()):
            name = call.name or "unknown_tool"
            blocks.append(ToolCallBlock(id=call.id, name=name, input=_arguments(call)))
        return blocks

    def stop_reason(self) -> StopReason:
        if self.finish_reason is None:
            raise ProviderRetryableError("openai: the stream ended before the reply was finished")
        if self.finish_reason == "length":
            return "max_tokens"
        # Ollama ends tool calls with "stop"; the calls themselves are what counts.
        return "tool_use" if self.calls else "end_turn"


def _reasoning(delta: ChoiceDelta) -> str:
    extra = delta.model_extra or {}
    for name in _REASONING_FIELDS:
        value = extra.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _arguments(call: _Call) -> dict[str, Any]:
    """The parsed arguments; anything but a JSON object is kept verbatim for a clear tool error."""
    if not call.arguments.strip():
        return {}
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {RAW_ARGUMENTS: call.arguments}
    if not isinstance(value, dict):
        return {RAW_ARGUMENTS: call.arguments}
    return cast(dict[str, Any], value)
