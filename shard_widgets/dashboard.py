"""AgentDashboard: every agent the gateway knows, with Attach and Kill.

The host refreshes it by setting `agents` (AgentInfo models or dicts). A click arrives as
`{type: "attach"|"kill", agent_id}` and reaches the callback as the orchestrator command it
stands for (`AgentAttachCommand` / `AgentKillCommand`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import traitlets
from pydantic import Field, TypeAdapter

from shard_core.protocol import AgentAttachCommand, AgentInfo, AgentKillCommand
from shard_core.types import WireModel
from shard_widgets import _bundle
from shard_widgets._base import ShardWidget
from shard_widgets._controller import ControllerResult
from shard_widgets._messages import MessageError, parse

AgentAction = AgentAttachCommand | AgentKillCommand
ActionCallback = Callable[[AgentAction], ControllerResult]


class DashboardMessage(WireModel):
    """What the dashboard's buttons send."""

    type: Literal["attach", "kill"]
    agent_id: str = Field(min_length=1)
    id: str | None = None


MESSAGES: TypeAdapter[DashboardMessage] = TypeAdapter(DashboardMessage)
AGENTS: TypeAdapter[list[AgentInfo]] = TypeAdapter(list[AgentInfo])


class AgentDashboard(ShardWidget):
    _esm = _bundle.esm("agent-dashboard.js")

    agents = traitlets.List(help="AgentInfo dicts").tag(sync=True)

    def __init__(
        self,
        agents: Sequence[AgentInfo | dict[str, Any]] = (),
        on_action: ActionCallback | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(agents=list(agents), **kwargs)
        self.on_action = on_action

    @traitlets.validate("agents")
    def _validate_agents(self, proposal: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            agent.model_dump(mode="json") for agent in AGENTS.validate_python(proposal["value"])
        ]

    def _handle(self, content: dict[str, Any]) -> tuple[str, str | None, ControllerResult]:
        message = parse(MESSAGES, content)
        if all(agent["id"] != message.agent_id for agent in self.agents):
            raise MessageError(
                f"no agent {message.agent_id} on this dashboard",
                command=message.type,
                command_id=message.id,
            )
        if self.on_action is None:
            raise MessageError(
                "nobody is listening for this action", command=message.type, command_id=message.id
            )
        action = (
            AgentAttachCommand(agent_id=message.agent_id)
            if message.type == "attach"
            else AgentKillCommand(agent_id=message.agent_id)
        )
        return message.type, message.id, self.on_action(action)
