"""OpenAIProvider: Chat Completions streaming through the official `openai` SDK; with `base_url`
it serves any compatible server (Ollama, vLLM, llama.cpp).

The SDK is imported at the first request, in a worker thread. A client is created per request
with `max_retries=0` and closed when the stream ends: the engine owns retries, and nothing
outlives the event loop that made it. The clients share one TLS context (loading the CA store
took ~100 ms a request here, a small model's whole answer time).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from shard_core.contracts.provider import ModelFamily, ProviderSetup, ProviderSpec
from shard_core.providers.families import context_window as window_of
from shard_core.providers.families import name_at_url, no_key, price, priced
from shard_core.providers.http_errors import connection_error, status_error
from shard_core.providers.openai_format import RAW_ARGUMENTS, request_params
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
from shard_core.types.base import JsonObject
from shard_core.types.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    ProviderRetryableError,
)
from shard_core.types.usage import Price

if TYPE_CHECKING:
    import ssl

    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDelta

FAMILIES = (
    ModelFamily(
        "gpt-5", context_window=400_000, price=Price(input=1.25, output=10, cache_read=0.125)
    ),
    ModelFamily("gpt-5-mini", price=Price(input=0.25, output=2, cache_read=0.025)),
    ModelFamily("gpt-5-nano", price=Price(input=0.05, output=0.4, cache_read=0.005)),
    ModelFamily("gpt-4.1", context_window=1_047_576),
    ModelFamily(
        "gpt-4o", context_window=128_000, price=Price(input=2.5, output=10, cache_read=1.25)
    ),
    ModelFamily("gpt-4o-mini", price=Price(input=0.15, output=0.6, cache_read=0.075)),
)
"""OpenAI's context windows and prices (USD per million tokens), by family."""
DEFAULT_MODEL = "gpt-5"
LOCAL_API_KEY = "not-needed"
"""What an OpenAI-compatible local server (Ollama, vLLM, llama.cpp) gets as its API key."""
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
        self.context_window = context_window or window_of(FAMILIES, model)
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
            raise connection_error(
                self.name, exc, base_url=self._effective_base_url(), model=self.model
            ) from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"{self.name}: {exc}") from exc

    def wire_options(self) -> dict[str, object]:
        """The official API gets `max_completion_tokens`, other servers `max_tokens`."""
        return {"official": urlsplit(self._effective_base_url()).hostname == OFFICIAL_HOST}

    def _effective_base_url(self) -> str:
        """Where the SDK sends requests: the given URL, else OPENAI_BASE_URL, else OpenAI's."""
        return self._base_url or os.environ.get("OPENAI_BASE_URL") or OFFICIAL_BASE_URL

    def _client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient, OpenAIError

        try:
            return AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=0,
                http_client=DefaultAsyncHttpxClient(verify=_tls_context()),
            )
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
        usage = priced(reply.usage, price(FAMILIES, self.model, self._prices))
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
        if self.finish_reason == "content_filter":
            return "refusal"
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


def _build(setup: ProviderSetup) -> OpenAIProvider:
    if not setup.api_key and not setup.base_url:
        raise ConfigError(no_key("openai", "OPENAI_API_KEY") + ", or a base URL for a local server")
    return OpenAIProvider(
        setup.model,
        api_key=setup.api_key or LOCAL_API_KEY,
        base_url=setup.base_url,
        context_window=setup.context_window,
        prices=setup.prices,
    )


def wire_body(request: ProviderRequest, options: Mapping[str, object]) -> JsonObject:
    """The Chat Completions body the SDK sends (it streams: `"stream": true`)."""
    official = bool(options.get("official", False))
    return {**request_params(request, request.model, official=official), "stream": True}


SPEC = ProviderSpec(
    prefix="openai",
    build=_build,
    parse=name_at_url,
    env_keys=("OPENAI_API_KEY",),
    base_url_env="OPENAI_BASE_URL",
    keyless=True,
    default_model=lambda env: env.get("OPENAI_MODEL") or DEFAULT_MODEL,
    priority=20,
    families=FAMILIES,
    wire_body=wire_body,
    forms=(
        "openai/<model> (e.g. openai/gpt-5)",
        "openai/<model>@<base_url> (e.g. openai/qwen2.5-coder@http://127.0.0.1:11434/v1)",
    ),
)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()
