"""Our request as Chat Completions parameters (plain JSON, no SDK types), for OpenAI and the
servers that copy its API (Ollama, vLLM, llama.cpp).

The system sections become one system message; tool results become `role: "tool"` messages;
thinking blocks are dropped (the API has no field for them). Text-only user content is sent
as a plain string, which every compatible server accepts.
"""

from __future__ import annotations

import json
from typing import Any

from shard_core.types import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    Message,
    ProviderRequest,
    SystemSection,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
)

Json = dict[str, Any]
RAW_ARGUMENTS = "_raw_arguments"
"""Key under which tool arguments that are not a JSON object are kept, verbatim."""


def request_params(request: ProviderRequest, model: str, *, official: bool) -> Json:
    """Keyword arguments for `chat.completions.create`, but for `stream=True`.

    The official API wants `max_completion_tokens` (newer models reject `max_tokens`); the
    compatible servers are only sure to know `max_tokens`.
    """
    params: Json = {
        "model": model,
        "messages": messages_param(request.system, request.messages),
        "stream_options": {"include_usage": True},
        ("max_completion_tokens" if official else "max_tokens"): request.max_tokens,
    }
    if request.tools:
        params["tools"] = tools_param(request.tools)
    if request.temperature is not None:
        params["temperature"] = request.temperature
    return params


def tools_param(tools: list[ToolSpec]) -> list[Json]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools
    ]


def messages_param(system: list[SystemSection], messages: list[Message]) -> list[Json]:
    out: list[Json] = []
    if prompt := "\n\n".join(s.text for s in system if s.text):
        out.append({"role": "system", "content": prompt})
    for message in messages:
        if isinstance(message, AssistantMessage):
            if converted := _assistant(message):
                out.append(converted)
        else:
            out += _user(message.content)
    return out


def _assistant(message: AssistantMessage) -> Json | None:
    calls = [_tool_call(b) for b in message.content if isinstance(b, ToolCallBlock)]
    text = message.text
    if not text and not calls:
        return None
    converted: Json = {"role": "assistant", "content": text or None}
    if calls:
        converted["tool_calls"] = calls
    return converted


def _tool_call(block: ToolCallBlock) -> Json:
    raw = block.input.get(RAW_ARGUMENTS)
    arguments = raw if len(block.input) == 1 and isinstance(raw, str) else json.dumps(block.input)
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }


def _user(content: list[ContentBlock]) -> list[Json]:
    """Tool results first, as `tool` messages (their images follow as a user message)."""
    out: list[Json] = []
    images: list[Json] = []
    for block in content:
        if isinstance(block, ToolResultBlock):
            out.append(_tool_message(block))
            images += [_image(c) for c in block.content if isinstance(c, ImageBlock)]
    parts = [p for b in content if (p := _user_part(b)) is not None]
    parts = images + parts
    if parts and all(p["type"] == "text" for p in parts):
        out.append({"role": "user", "content": "\n\n".join(p["text"] for p in parts)})
    elif parts:
        out.append({"role": "user", "content": parts})
    return out


def _tool_message(block: ToolResultBlock) -> Json:
    texts = [c.text for c in block.content if isinstance(c, TextBlock)]
    if any(isinstance(c, ImageBlock) for c in block.content):
        texts.append("(image attached in the next message)")
    text = "\n".join(texts) or "(no output)"
    if block.is_error:
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": block.tool_call_id, "content": text}


def _user_part(block: ContentBlock) -> Json | None:
    if isinstance(block, TextBlock) and block.text:
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        return _image(block)
    return None


def _image(block: ImageBlock) -> Json:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.media_type};base64,{block.data}"},
    }
