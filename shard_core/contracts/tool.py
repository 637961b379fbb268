"""Tool: a capability the model can invoke — schema, read-only flag, async execute."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from shard_core.types import JsonObject, ToolResult, ToolSpec


@dataclass(frozen=True)
class ToolContext:
    """What a running tool may know about the agent that called it."""

    cwd: Path
    roots: Sequence[Path]
    agent_id: str
    session_id: str
    call_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    env: dict[str, str] | None = None
    on_update: Callable[[ToolResult], None] | None = None


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    input_schema: JsonObject
    read_only: bool

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        """Run the tool. Failures come back as `ToolResult.error(...)`, never as exceptions."""
        ...


def tool_spec(tool: Tool) -> ToolSpec:
    """The model-facing view of a tool."""
    return ToolSpec(name=tool.name, description=tool.description, input_schema=tool.input_schema)


class ToolRegistry(Protocol):
    """Name → tool; the single source of what tools exist this turn."""

    def register(self, tool: Tool) -> Tool | None:
        """Add or replace; returns the tool it replaced, if any."""
        ...

    def get(self, name: str) -> Tool | None: ...

    def tools(self) -> list[Tool]:
        """Every registered tool, in registration order."""
        ...
