"""AnthropicProvider: the Messages API, streamed through the official `anthropic` SDK.

The SDK is imported at the first request, in a worker thread (it takes seconds). A client is
created per request with `max_retries=0` and closed when the stream ends: the engine owns
retries, nothing outlives the event loop that made it, and a TLS handshake is noise next to a
model call.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from shard_core.engine.config import Price
from shard_core.providers.anthropic_format import request_params
from shard_core.providers.http_errors import connection_error, status_error
from shard_core.providers.models import context_window_for
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
    from anthropic import AsyncAnthropic
    from anthropic.lib.streaming import ParsedMessageStreamEvent
    from anthropic.types import Message as SdkMessage

_NO_KEY = "anthropic: no API key (set ANTHROPIC_API_KEY or providers.anthropic.api_key)"
_STOP_REASONS: Mapping[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "pause_turn": "end_turn",
    "refusal": "end_turn",
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
        self.context_window = context_window or context_window_for(model)
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
            raise connection_error(self.name, exc) from exc
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
        usage = with_cost(self.model, usage, self._prices)
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
