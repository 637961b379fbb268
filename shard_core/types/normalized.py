"""NormalizedBlock: the flat, provider-neutral view of a conversation that compaction reads.

The blocks are pydantic dataclasses with slots, not `WireModel`s: the same fields, the same
validation when made by keyword, the same JSON Schema (schema/normalized-block.json), the same
config (extra fields refused) and the BaseModel methods an extractor may call. Compaction makes
thousands per run from entries already validated (normalize.py's constructors: no validation),
and its extractors read each several times: a slotted attribute reads at a plain object's
speed, a BaseModel's through its `__getattr__` hook at two to three times that.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal, Self, cast

from pydantic import Field, TypeAdapter
from pydantic.dataclasses import dataclass
from pydantic_core import SchemaSerializer, SchemaValidator

from shard_core.types.base import DEFERRED, JsonObject, WireModel

_CONFIG = WireModel.model_config


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class _Block:
    entry_index: int = Field(ge=0, description="stable index of the source entry in the JSONL")

    # The BaseModel methods an extractor may use, with the same results.

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        validator = cast(SchemaValidator, getattr(cls, "__pydantic_validator__"))  # noqa: B009
        return cast(Self, validator.validate_python(data))

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return cast(dict[str, Any], _serializer(self).to_python(self, **kwargs))

    def model_dump_json(self, **kwargs: Any) -> str:
        return _serializer(self).to_json(self, **kwargs).decode()

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Self:
        """A copy with `update` applied, validated."""
        return replace(self, **(update or {}))


def _serializer(block: _Block) -> SchemaSerializer:
    return cast(SchemaSerializer, getattr(type(block), "__pydantic_serializer__"))  # noqa: B009


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class UserBlock(_Block):
    kind: Literal["user"] = "user"
    text: str


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class AssistantBlock(_Block):
    kind: Literal["assistant"] = "assistant"
    text: str


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class ToolCallNBlock(_Block):
    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: JsonObject


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class ToolResultNBlock(_Block):
    kind: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    text: str
    is_error: bool


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class BashBlock(_Block):
    kind: Literal["bash"] = "bash"
    id: str
    command: str
    output: str
    exit_code: int | None


@dataclass(config=_CONFIG, slots=True, kw_only=True)
class ThinkingNBlock(_Block):
    kind: Literal["thinking"] = "thinking"
    text: str


NormalizedBlock = Annotated[
    UserBlock | AssistantBlock | ToolCallNBlock | ToolResultNBlock | BashBlock | ThinkingNBlock,
    Field(discriminator="kind"),
]

BLOCK_ADAPTER: TypeAdapter[NormalizedBlock] = TypeAdapter(NormalizedBlock, config=DEFERRED)
"""A block from data and back (the blocks are not models): `BLOCK_ADAPTER.validate_python(d)`,
`BLOCK_ADAPTER.dump_python(block)`, `BLOCK_ADAPTER.dump_json(block)`."""
