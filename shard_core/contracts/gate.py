"""PermissionGate: decides allow / deny for one tool call, asking a person when it must."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from shard_core.contracts.tool import ToolContext
from shard_core.types import Decision, JsonObject


@dataclass(frozen=True)
class PermissionQuery:
    tool: str
    input: JsonObject
    read_only: bool
    cwd: Path
    call_id: str
    turn_id: str
    agent_id: str
    context: ToolContext | None = None
    """what the tool would run with (for a preview); None: cwd is the only root"""

    def tool_context(self) -> ToolContext:
        """`context`, or the narrowest one this query implies (cwd the only root)."""
        if self.context is not None:
            return self.context
        return ToolContext(
            cwd=self.cwd, roots=(self.cwd,), agent_id=self.agent_id, session_id="",
            call_id=self.call_id,
        )  # fmt: skip


@dataclass(frozen=True)
class PermissionOutcome:
    """The final word on one call. `decision` is never `Ask` here."""

    decision: Decision
    source: str
    decided_by: str
    request_id: str | None = None
    reach: tuple[Path, ...] = ()
    """Paths outside the workspace this call may touch: the exact target an absolute-path rule,
    a grant or a person allowed (the tool runs with them as extra roots)."""


class PermissionGate(Protocol):
    def evaluate(self, query: PermissionQuery) -> Decision:
        """Layered, side-effect-free evaluation: deny rules → grants → mode → ask."""
        ...

    async def authorize(self, query: PermissionQuery) -> PermissionOutcome:
        """Evaluate, ask through the UI bridge when needed, record the decision durably.

        Must fail closed: any error on the way is a deny.
        """
        ...
