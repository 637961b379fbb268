"""Messages and their content blocks: what a conversation is made of."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import JsonObject, WireModel
from shard_core.types.usage import Usage


class TextBlock(WireModel):
    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(WireModel):
    """Model reasoning, kept in the log so a provider that signs it can be replayed exactly."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


class ImageBlock(WireModel):
    type: Literal["image"] = "image"
    media_type: Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
    data: str = Field(description="base64-encoded image bytes")


ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
"""What a call does, for clients that sort or draw calls by it (an ACP host's tool `kind`)."""

TOOL_KINDS: frozenset[str] = frozenset(
    ("read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other")
)


class ToolCallBlock(WireModel):
    type: Literal["tool_call"] = "tool_call"
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    input: JsonObject = Field(default_factory=dict)


ResultContent = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]


class ToolResultBlock(WireModel):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str = Field(min_length=1)
    content: list[ResultContent] = Field(default_factory=list[ResultContent])
    is_error: bool = False


ContentBlock = Annotated[
    TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | ToolResultBlock,
    Field(discriminator="type"),
]

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "aborted", "error"]
"""why a reply ended; `refusal`: the provider says the model declined (Anthropic's `refusal`,
OpenAI's `content_filter`)"""


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: list[ContentBlock]


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: list[ContentBlock]
    model: str | None = None
    stop_reason: StopReason | None = None
    usage: Usage | None = None

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        return [b for b in self.content if isinstance(b, ToolCallBlock)]

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


Message = Annotated[UserMessage | AssistantMessage, Field(discriminator="role")]
