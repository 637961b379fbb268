"""Our request as Anthropic Messages API parameters: plain JSON, no SDK types.

The API wants strictly alternating roles and tool results inside user messages, first in their
message; our log keeps tool results as entries of their own, so consecutive same-role messages
are merged here. Cache breakpoints go on the last tool, the last stable system section and the
newest message, so tools + stable prompt + history are read from the prompt cache next time.
"""

from __future__ import annotations

from typing import Any

from shard_core.types import (
    ContentBlock,
    ImageBlock,
    Message,
    ProviderRequest,
    ResultContent,
    SystemSection,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    UserMessage,
)

Json = dict[str, Any]
EPHEMERAL: Json = {"type": "ephemeral"}


def request_params(request: ProviderRequest, model: str) -> Json:
    """Keyword arguments for `messages.stream` (`system`/`tools` only when there are any)."""
    params: Json = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages_param(request.messages),
    }
    if system := system_param(request.system):
        params["system"] = system
    if request.tools:
        params["tools"] = tools_param(request.tools)
    # no `temperature`: the Messages API this SDK speaks takes no sampling parameters
    return params


def system_param(sections: list[SystemSection]) -> list[Json]:
    blocks: list[Json] = [{"type": "text", "text": s.text} for s in sections if s.text]
    kept = [s for s in sections if s.text]
    stable = [i for i, s in enumerate(kept) if s.stable]
    if stable:
        blocks[stable[-1]]["cache_control"] = dict(EPHEMERAL)
    return blocks


def tools_param(tools: list[ToolSpec]) -> list[Json]:
    params: list[Json] = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in tools
    ]
    if params:
        params[-1]["cache_control"] = dict(EPHEMERAL)
    return params


def messages_param(messages: list[Message]) -> list[Json]:
    """Alternating user/assistant messages; empty ones dropped, same-role neighbours merged."""
    merged: list[Json] = []
    for message in messages:
        convert = _user_block if isinstance(message, UserMessage) else _assistant_block
        blocks = [b for block in message.content if (b := convert(block)) is not None]
        if not blocks:
            continue
        if merged and merged[-1]["role"] == message.role:
            merged[-1]["content"].extend(blocks)
        else:
            merged.append({"role": message.role, "content": blocks})
    for message in merged:
        if message["role"] == "user":
            # tool_result blocks must open the user message that answers a tool_use
            message["content"].sort(key=_results_first)
    if merged and merged[-1]["content"]:
        last = merged[-1]["content"][-1]
        if last["type"] in ("text", "image", "tool_result"):
            last["cache_control"] = dict(EPHEMERAL)
    return merged


def _results_first(block: Json) -> bool:
    return block["type"] != "tool_result"


def _user_block(block: ContentBlock) -> Json | None:
    if isinstance(block, ToolResultBlock):
        result: Json = {"type": "tool_result", "tool_use_id": block.tool_call_id}
        if content := [_result_content(c) for c in block.content if _has_content(c)]:
            result["content"] = content
        if block.is_error:
            result["is_error"] = True
        return result
    if isinstance(block, TextBlock | ImageBlock) and _has_content(block):
        return _result_content(block)
    return None


def _assistant_block(block: ContentBlock) -> Json | None:
    if isinstance(block, TextBlock) and block.text:
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock) and block.signature:
        # An unsigned thought (from another provider) cannot be replayed to Anthropic.
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    return None


def _has_content(block: ResultContent) -> bool:
    return not isinstance(block, TextBlock) or bool(block.text)


def _result_content(block: ResultContent) -> Json:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    source = {"type": "base64", "media_type": block.media_type, "data": block.data}
    return {"type": "image", "source": source}
