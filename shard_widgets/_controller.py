"""What a widget's answers and controls are delivered to: an agent, in-process or behind a kernel.

The widget does not know which. The SDK implements `AgentController` on an in-process session;
a kernel client implements it by sending the same commands over the `shard` comm.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Literal, Protocol, TypeAlias

from shard_core.protocol import CommandReply
from shard_core.protocol.commands import RewindCommand

PermissionDecision: TypeAlias = Literal["allow", "allow_always", "deny"]
UiValue: TypeAlias = str | bool | list[str] | None

Outcome: TypeAlias = CommandReply | bool | None
"""None or True: accepted; False: refused; a CommandReply: sent back as it is."""

ControllerResult: TypeAlias = Outcome | Awaitable[Outcome]
"""An awaitable result is awaited on the running event loop, then replied."""


class AgentController(Protocol):
    """`respond_permission` and `respond_ui` also receive `label=` (the client's name for
    people, which should become `decided_by`) when the browser gave one: accept it."""

    def respond_permission(
        self,
        request_id: str,
        decision: PermissionDecision,
        *,
        client_id: str,
        rule: str | None,
        reason: str | None,
    ) -> ControllerResult: ...

    def respond_ui(
        self, request_id: str, value: UiValue, *, client_id: str
    ) -> ControllerResult: ...

    def abort(self) -> ControllerResult: ...

    def steer(
        self,
        text: str,
        *,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
    ) -> ControllerResult: ...

    def set_mode(self, mode: str) -> ControllerResult: ...


class CommandController(AgentController, Protocol):
    """A controller that also runs `/` commands (the widget's steer box sends them); the SDK's
    and the gateway client's are. A command's output is a `command_output` event."""

    def run_command(
        self, text: str, *, client_id: str | None = None, label: str | None = None
    ) -> ControllerResult: ...

    def list_commands(self) -> ControllerResult:
        """A reply whose `data.commands` lists the agent's slash commands."""
        ...

    def rewind(self, command: RewindCommand) -> ControllerResult:
        """Checkpoints: list, rewind, undo, review (`diff`) or revert, replied like the
        kernel's `rewind` command; a rewind reaches every widget as a `rewind` event."""
        ...
