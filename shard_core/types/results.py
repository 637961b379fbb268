"""ToolResult: what a tool gives back — content for the model, descriptors for people."""

from __future__ import annotations

from pydantic import Field

from shard_core.types.base import JsonObject, WireModel
from shard_core.types.content import ResultContent, TextBlock
from shard_core.types.render import RenderDescriptor, StatusDescriptor


class ToolResult(WireModel):
    content: list[ResultContent] = Field(default_factory=list[ResultContent])
    is_error: bool = False
    render: list[RenderDescriptor] = Field(default_factory=list[RenderDescriptor])
    details: JsonObject = Field(default_factory=dict)

    @classmethod
    def ok(cls, text: str, *render: RenderDescriptor, **details: object) -> ToolResult:
        return cls(content=[TextBlock(text=text)], render=list(render), details=dict(details))

    @classmethod
    def error(cls, message: str, **details: object) -> ToolResult:
        """A failure reported to the model as data; tools never raise through the loop."""
        return cls(
            content=[TextBlock(text=message)],
            is_error=True,
            render=[StatusDescriptor(label=message, tone="error")],
            details=dict(details),
        )

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))
