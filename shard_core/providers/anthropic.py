"""AnthropicProvider: the Messages API, streamed through the official `anthropic` SDK.

The SDK is imported at the first request, in a worker thread (it takes seconds). A client is
created per request with `max_retries=0` and closed when the stream ends: the engine owns
retries, nothing outlives the event loop that made it, and a TLS handshake is noise next to a
model call.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from shard_core.contracts.provider import ModelFamily, ProviderSetup, ProviderSpec
from shard_core.providers.anthropic_format import request_params
from shard_core.providers.families import context_window as window_of
from shard_core.providers.families import name_at_url, no_key, price, priced
from shard_core.providers.http_errors import connection_error, status_error
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

OFFICIAL_BASE_URL = "https://api.anthropic.com"

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.lib.streaming import ParsedMessageStreamEvent
    from anthropic.types import Message as SdkMessage

FAMILIES = (
    ModelFamily("claude-", context_window=200_000),
    ModelFamily("opus", price=Price(input=15, output=75, cache_read=1.5, cache_write=18.75)),
    ModelFamily("opus-4-5", price=Price(input=5, output=25, cache_read=0.5, cache_write=6.25)),
    ModelFamily("sonnet", price=Price(input=3, output=15, cache_read=0.3, cache_write=3.75)),
    ModelFamily("haiku", price=Price(input=0.8, output=4, cache_read=0.08, cache_write=1)),
    ModelFamily("haiku-4-5", price=Price(input=1, output=5, cache_read=0.1, cache_write=1.25)),
)
"""Claude's context windows and prices (USD per million tokens), by family."""
DEFAULT_MODEL = "claude-sonnet-4-6"
_NO_KEY = "anthropic: no API key (set ANTHROPIC_API_KEY or providers.anthropic.api_key)"
_STOP_REASONS: Mapping[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "pause_turn": "end_turn",
    "refusal": "refusal",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
}


class AnthropicProvider:
    """Claude models via the Anthropic Messages API (or anything that speaks it at `base_url`)."""

    name = "anthropic"

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
        await import_off_loop("anthropic")
        import anthropic
        import httpx2

        try:
            async with self._client() as client:
                if client.api_key is None and client.auth_token is None:
                    raise ProviderAuthError(_NO_KEY)
                # aclosing: a consumer that stops early closes the SDK stream now, not at GC
                async with aclosing(self._events(client, request)) as events:
                    async for event in events:
                        yield event
        except anthropic.APIStatusError as exc:
            headers = exc.response.headers
            raise status_error(
                self.name, exc.status_code, body=exc.body, headers=headers, fallback=exc.message
            ) from exc
        except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
            base_url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL") or OFFICIAL_BASE_URL
            raise connection_error(self.name, exc, base_url=base_url, model=self.model) from exc
        except anthropic.AnthropicError as exc:
            raise ProviderError(f"{self.name}: {exc}") from exc

    def _client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(api_key=self._api_key, base_url=self._base_url, max_retries=0)

    async def _events(
        self, client: AsyncAnthropic, request: ProviderRequest
    ) -> AsyncGenerator[StreamEvent, None]:
        params = request_params(request, self.model)
        tool_calls: dict[int, tuple[str, str]] = {}
        async with client.messages.stream(**params) as stream:
            async for event in stream:
                for delta in _deltas(event, tool_calls):
                    yield delta
            final = await stream.get_final_message()
        yield self._done(final)

    def _done(self, final: SdkMessage) -> MessageDone:
        if final.stop_reason is None:
            raise ProviderRetryableError(f"{self.name}: the stream ended before message_stop")
        usage = Usage(
            input_tokens=final.usage.input_tokens,
            output_tokens=final.usage.output_tokens,
            cache_read_tokens=final.usage.cache_read_input_tokens or 0,
            cache_write_tokens=final.usage.cache_creation_input_tokens or 0,
        )
        usage = priced(usage, price(FAMILIES, self.model, self._prices))
        message = AssistantMessage(
            content=_content(final),
            model=self.model,
            stop_reason=_STOP_REASONS.get(final.stop_reason, "end_turn"),
            usage=usage,
        )
        return MessageDone(message=message, usage=usage)


def _deltas(
    event: ParsedMessageStreamEvent[Any], tool_calls: dict[int, tuple[str, str]]
) -> list[StreamEvent]:
    """Our deltas for one raw SDK event; remembers each tool_use block's id and name."""
    if event.type == "content_block_start" and event.content_block.type == "tool_use":
        block = event.content_block
        tool_calls[event.index] = (block.id, block.name)
        return [ToolCallDelta(id=block.id, name=block.name)]
    if event.type != "content_block_delta":
        return []
    delta = event.delta
    if delta.type == "text_delta" and delta.text:
        return [TextDelta(text=delta.text)]
    if delta.type == "thinking_delta" and delta.thinking:
        return [ThinkingDelta(text=delta.thinking)]
    if delta.type == "input_json_delta" and delta.partial_json and event.index in tool_calls:
        call_id, name = tool_calls[event.index]
        return [ToolCallDelta(id=call_id, name=name, partial_json=delta.partial_json)]
    return []


def _content(final: SdkMessage) -> list[ContentBlock]:
    """The final message's blocks in order; redacted thinking and server tools are dropped."""
    blocks: list[ContentBlock] = []
    for block in final.content:
        if block.type == "text" and block.text:
            blocks.append(TextBlock(text=block.text))
        elif block.type == "thinking":
            blocks.append(ThinkingBlock(thinking=block.thinking, signature=block.signature or None))
        elif block.type == "tool_use":
            blocks.append(ToolCallBlock(id=block.id, name=block.name, input=_input(block.input)))
    return blocks


def _input(value: object) -> dict[str, Any]:
    if isinstance(value, dict):
        return cast(dict[str, Any], value)
    return {"_raw_arguments": str(value)}


def _build(setup: ProviderSetup) -> AnthropicProvider:
    if not setup.api_key:
        raise ConfigError(no_key("anthropic", "ANTHROPIC_API_KEY"))
    return AnthropicProvider(
        setup.model,
        api_key=setup.api_key,
        base_url=setup.base_url,
        context_window=setup.context_window,
        prices=setup.prices,
    )


def wire_body(request: ProviderRequest, options: Mapping[str, object]) -> JsonObject:
    """The Messages API body the SDK sends (it streams: `"stream": true`)."""
    return {**request_params(request, request.model), "stream": True}


SPEC = ProviderSpec(
    prefix="anthropic",
    build=_build,
    parse=name_at_url,
    env_keys=("ANTHROPIC_API_KEY",),
    base_url_env="ANTHROPIC_BASE_URL",
    default_model=DEFAULT_MODEL,
    priority=10,
    families=FAMILIES,
    wire_body=wire_body,
    forms=("anthropic/<model> (e.g. anthropic/claude-sonnet-4-5)",),
)
