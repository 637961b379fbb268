"""Mode: a policy bundle — filters tools, adds a prompt section, votes, hooks turn end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from shard_core.contracts.tool import Tool
from shard_core.types import AssistantMessage, CheckpointDetails, Decision, SessionEntry


@dataclass(frozen=True)
class ModeContext:
    """What a mode may read: the active branch, newest last."""

    branch: Sequence[SessionEntry]


class Mode(Protocol):
    name: str
    description: str

    def filter_tools(self, tools: Sequence[Tool]) -> list[Tool]: ...

    def prompt_section(self, ctx: ModeContext) -> str | None:
        """A system-prompt section, or None for no change."""
        ...

    def vote(self, tool: Tool, input: dict[str, object]) -> Decision | None:
        """The mode's permission vote; None abstains."""
        ...

    def on_turn_end(self, message: AssistantMessage, ctx: ModeContext) -> CheckpointDetails | None:
        """Pure: a checkpoint the loop should persist (e.g. an extracted plan), or None."""
        ...
