"""NormalizedBlock: the flat, provider-neutral view of a conversation that compaction reads."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import JsonObject, WireModel


class _Block(WireModel):
    entry_index: int = Field(ge=0, description="stable index of the source entry in the JSONL")


class UserBlock(_Block):
    kind: Literal["user"] = "user"
    text: str


class AssistantBlock(_Block):
    kind: Literal["assistant"] = "assistant"
    text: str


class ToolCallNBlock(_Block):
    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: JsonObject


class ToolResultNBlock(_Block):
    kind: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    text: str
    is_error: bool


class BashBlock(_Block):
    kind: Literal["bash"] = "bash"
    id: str
    command: str
    output: str
    exit_code: int | None


class ThinkingNBlock(_Block):
    kind: Literal["thinking"] = "thinking"
    text: str


NormalizedBlock = Annotated[
    UserBlock | AssistantBlock | ToolCallNBlock | ToolResultNBlock | BashBlock | ThinkingNBlock,
    Field(discriminator="kind"),
]
