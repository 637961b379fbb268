"""AgentDashboard: agents in, attach/kill out as orchestrator commands."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from shard_core.protocol import AgentAttachCommand, AgentInfo, AgentKillCommand
from shard_widgets import AgentDashboard
from shard_widgets._controller import ControllerResult
from shard_widgets.dashboard import AgentAction
from tests.unit.widgets._support import comm_of


def info(agent_id: str, **fields: Any) -> dict[str, Any]:
    base = {
        "id": agent_id,
        "name": agent_id[6:],
        "cwd": "/repo",
        "model": "m",
        "mode": "build",
        "status": "idle",
    }
    return {**base, "runtime_state": "running", "created": 1.0, **fields}


def reply(
    command: str, ok: bool, message: str = "", command_id: str | None = "c1"
) -> dict[str, Any]:
    return {
        "type": "reply",
        "command_id": command_id,
        "command": command,
        "ok": ok,
        "message": message,
        "data": {},
    }


class Actions:
    def __init__(self) -> None:
        self.received: list[AgentAction] = []

    def __call__(self, action: AgentAction) -> ControllerResult:
        self.received.append(action)
        return None


def test_agents_are_validated_and_completed() -> None:
    dashboard = AgentDashboard(
        [AgentInfo.model_validate(info("agent-a")), info("agent-b", clients=2)]
    )
    assert [a["id"] for a in dashboard.agents] == ["agent-a", "agent-b"]
    assert dashboard.agents[1]["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "cost_usd": 0.0,
    }
    with pytest.raises(ValidationError):
        dashboard.agents = [info("not-an-agent-id")]
    dashboard.agents = []
    assert dashboard.agents == []


@pytest.mark.parametrize(
    ("kind", "command"),
    [
        ("attach", AgentAttachCommand(agent_id="agent-a")),
        ("kill", AgentKillCommand(agent_id="agent-a")),
    ],
)
def test_buttons_reach_the_callback_as_orchestrator_commands(
    kind: str, command: AgentAction
) -> None:
    actions = Actions()
    dashboard = AgentDashboard([info("agent-a")], on_action=actions)
    dashboard._handle_custom_msg({"type": kind, "agent_id": "agent-a", "id": "c1"}, [])
    assert actions.received == [command]
    assert comm_of(dashboard).custom() == [reply(kind, True)]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"type": "kill", "agent_id": "agent-zz", "id": "c1"},
            reply("kill", False, "no agent agent-zz on this dashboard"),
        ),
        (
            {"type": "restart", "agent_id": "agent-a", "id": "c1"},
            reply("restart", False, "invalid message: type: Input should be 'attach' or 'kill'"),
        ),
        (
            {"type": "kill", "id": "c1"},
            reply("kill", False, "invalid message: agent_id: Field required"),
        ),
        (
            {"type": "kill", "agent_id": "agent-a", "force": True},
            reply("kill", False, "invalid message: force: Extra inputs are not permitted", None),
        ),
    ],
)
def test_bad_actions_are_refused(content: dict[str, Any], expected: dict[str, Any]) -> None:
    actions = Actions()
    dashboard = AgentDashboard([info("agent-a")], on_action=actions)
    dashboard._handle_custom_msg(content, [])
    assert actions.received == []
    assert comm_of(dashboard).custom() == [expected]


def test_without_a_callback_actions_are_refused() -> None:
    dashboard = AgentDashboard([info("agent-a")])
    dashboard._handle_custom_msg({"type": "attach", "agent_id": "agent-a", "id": "c1"}, [])
    assert comm_of(dashboard).custom() == [
        reply("attach", False, "nobody is listening for this action")
    ]
