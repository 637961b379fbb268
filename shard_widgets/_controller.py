"""What a widget's answers and controls are delivered to: an agent, in-process or behind a kernel.

The widget does not know which. The SDK implements `AgentController` on an in-process session;
a kernel client implements it by sending the same commands over the `shard` comm.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from shard_core.protocol import CommandReply
from shard_core.protocol.commands import RewindCommand
from shard_core.types import ContextKind, ImageBlock

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
        images: Sequence[ImageBlock] = (),
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
    ) -> ControllerResult: ...

    def set_mode(self, mode: str) -> ControllerResult: ...


ShownNotebook: TypeAlias = tuple[str, list[dict[str, Any]]]
"""a notebook's name and its nbformat cells as the page shows them (its host offered them)"""


@dataclass(frozen=True)
class MentionContext:
    """One `@` mention as the context the agent logs (`inject`), labelled with its source."""

    text: str
    kind: ContextKind
    label: str


@dataclass(frozen=True)
class Mentions:
    contexts: list[MentionContext]
    images: list[ImageBlock] = field(default_factory=list[ImageBlock])
    """images the mentioned cells' outputs hold: they go with the message"""


class MentionRefusedError(ValueError):
    """A mention that cannot be resolved (a missing variable, a file outside the agent's
    folder, no such cell); its text is the reason the composer shows. Nothing is sent."""


class ComposerController(AgentController, Protocol):
    """A controller the widget's composer sends whole messages to: a prompt when no turn runs
    (the SDK's and the gateway client's are), `@` mentions made context in the notebook's
    kernel first, and the `@` completion."""

    def send_prompt(self, text: str, images: Sequence[ImageBlock]) -> ControllerResult:
        """Starts a turn; a reply with `ok: false` when one runs already."""
        ...

    def inject(self, text: str, kind: ContextKind, label: str | None) -> ControllerResult: ...

    def mention_contexts(self, text: str, shown: ShownNotebook | None = None) -> Mentions:
        """Every `@` mention of `text`, all resolved before any is sent; MentionRefusedError.
        `shown`: the notebook as the page shows it, for `@cell:`/`@output:` (else as saved)."""
        ...

    def mention_options(
        self, word: str, shown: ShownNotebook | None = None
    ) -> list[dict[str, str]]:
        """What completes the `@` word being typed: `{insert, detail}` each."""
        ...


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
