"""UiBridge: how the core asks a person something, whatever client they are on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from shard_core.types import JsonObject, RenderDescriptor


@dataclass(frozen=True)
class PermissionPrompt:
    request_id: str
    tool: str
    input: JsonObject
    prompt: str
    suggested_rule: str | None
    read_only: bool
    tool_call_id: str | None = None
    turn_id: str | None = None
    preview: tuple[RenderDescriptor, ...] = ()


@dataclass(frozen=True)
class PermissionAnswer:
    decision: str  # "allow" | "allow_always" | "deny"
    decided_by: str
    source: str = "client"  # "client" | "headless" | "timeout" | "abort"
    reason: str | None = None
    rule: str | None = None
    client_id: str | None = None
    """the answering client's id; `decided_by` is its label when it gave one"""
    scope: str = "agent"
    """for allow_always: "agent" (this agent only) or "workspace" (every agent in its folder)"""


class UiBridge(Protocol):
    """Implemented by each surface: a terminal prompt, an SDK callback, kernel comms."""

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer: ...

    async def select(self, title: str, options: list[str], message: str = "") -> str | None: ...

    async def confirm(self, title: str, message: str = "") -> bool | None: ...

    async def input(
        self, title: str, message: str = "", default: str | None = None
    ) -> str | None: ...

    async def notify(self, title: str, message: str = "") -> None: ...
