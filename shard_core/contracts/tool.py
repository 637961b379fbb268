"""Tool: a capability the model can invoke — schema, read-only flag, async execute (+ preview)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from shard_core.contracts.codeintel import CodeIntelligenceProvider
from shard_core.types import JsonObject, RenderDescriptor, ToolResult, ToolSpec
from shard_core.types.content import TOOL_KINDS, ToolKind


class HostFiles(Protocol):
    """Text files as the person's editor holds them (an ACP host's buffers, unsaved edits
    included). `read_text` returns None and `write_text` False when the editor does not offer
    that: the tool then uses the disk, as without a host."""

    async def read_text(self, path: Path) -> str | None: ...

    async def write_text(self, path: Path, text: str) -> bool: ...


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
    code_index: CodeIntelligenceProvider | None = None
    """the code intelligence an extension registered (outlines, symbols), if any"""
    files: HostFiles | None = None
    """the editor's view of text files, when the surface has one (read, edit, write use it)"""


@runtime_checkable
class Tool(Protocol):
    """A tool. Optionally it declares `access` (access.py: PathAccess, CommandAccess,
    DomainAccess): the shape the permission gate judges a call by; without one the call is
    judged by name and `read_only` alone."""

    name: str
    description: str
    input_schema: JsonObject
    read_only: bool

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        """Run the tool. Failures come back as `ToolResult.error(...)`, never as exceptions."""
        ...


@runtime_checkable
class PreviewableTool(Protocol):
    """A tool that can show what a call would do before it runs (optional; e.g. edit, bash).

    The permission gate calls `preview` when it asks a person, and shows the descriptors in the
    `permission_request`. It must change nothing; a preview that raises, or takes too long, is
    simply left out (the ask goes on without it), and so is one for input the tool would refuse.
    """

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]: ...


@runtime_checkable
class ReachingTool(Protocol):
    """A tool whose call can read beyond the agent's workspace roots without a path argument
    (optional; e.g. recall into another project's sessions).

    `reach` names each place outside the roots the call would read ("session s-… of
    /work/other"), or nothing when it stays inside. The gate judges a call that reaches out like
    a read outside the workspace: it asks, the headless policy denies, and no bare rule allows
    it. It must change nothing and be quick; one that raises is a deny (the gate fails closed).
    """

    def reach(self, input: JsonObject, ctx: ToolContext) -> Sequence[str]: ...


def tool_kind(tool: Tool | None) -> ToolKind:
    """The kind a tool declares (an optional `kind` attribute, one of ToolKind); without one,
    `read` for a read-only tool and `other` for the rest."""
    declared = getattr(tool, "kind", None)
    if isinstance(declared, str) and declared in TOOL_KINDS:
        return declared  # pyright: ignore[reportReturnType]
    return "read" if tool is not None and tool.read_only else "other"


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
