"""What the loop hands a provider and what a provider streams back, provider-neutral."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import JsonObject, WireModel
from shard_core.types.content import AssistantMessage, Message
from shard_core.types.usage import Usage


class ToolSpec(WireModel):
    """A tool as the model sees it: name, description, JSON Schema of its input."""

    name: str
    description: str
    input_schema: JsonObject


class SystemSection(WireModel):
    """One section of the system prompt. Stable sections come first so prompt caches survive."""

    name: str
    text: str
    stable: bool = True


class ProviderRequest(WireModel):
    model: str
    system: list[SystemSection]
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list[ToolSpec])
    max_tokens: int = 8192
    temperature: float | None = Field(default=None, description="None: the provider's default")


class TextDelta(WireModel):
    type: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDelta(WireModel):
    type: Literal["thinking_delta"] = "thinking_delta"
    text: str


class ToolCallDelta(WireModel):
    """A piece of a tool call's arguments as they stream; the final message carries the whole."""

    type: Literal["tool_call_delta"] = "tool_call_delta"
    id: str
    name: str
    partial_json: str = ""


class MessageDone(WireModel):
    type: Literal["message_done"] = "message_done"
    message: AssistantMessage
    usage: Usage


StreamEvent = Annotated[
    TextDelta | ThinkingDelta | ToolCallDelta | MessageDone, Field(discriminator="type")
]
