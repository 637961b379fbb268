"""AgentHost: what the kernel's helpers (comm commands, the kernel's own slash commands, the
widget host) use of the kernel that hosts the agent. They are typed against this, never against
`ShardKernel`, so the kernel depends on them and they do not depend on it (no design circle);
`ShardKernel` is the one implementation, a test double can be another."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from shard_core.engine.event_log import EventLog
    from shard_core.protocol.events import PermissionRequestEvent, UiRequestEvent
    from shard_core.sdk import Agent
    from shard_kernel.clients import ClientRegistry
    from shard_kernel.ui_bridge import CommUiBridge


class AgentHost(Protocol):
    clients: ClientRegistry
    pending: dict[str, PermissionRequestEvent]
    """the open permission prompts, by request id"""
    pending_ui: dict[str, UiRequestEvent]
    ui: CommUiBridge | None
    agent: Agent | None
    """None until the agent has started (or when it could not)"""
    event_log: EventLog | None

    @property
    def log(self) -> Any: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the agent runs on (its gate's futures live there); None before the boot."""
        ...

    async def ready_agent(self, cell: str | None = None) -> Agent: ...

    def clients_changed(self) -> None: ...

    def interrupt_turn(self) -> bool: ...

    def flush_events(self) -> None:
        """Publish the events waiting for a batch now (a reply must follow them)."""
        ...

    def send_output(self, kind: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        """One IOPub output message (display_data, update_display_data, …) under `parent`."""
        ...

    def current_request(self) -> dict[str, Any]:
        """The shell request being handled (an execute_request, a comm_msg), or {}."""
        ...
