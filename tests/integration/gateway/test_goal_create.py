"""A goal on REST create (`POST /shard/api/agents`): it reaches the kernel, every client sees it
in the status and as a `goal_update` event, and a restarted kernel does not set it again; one
over the cap is a 400 that names the limit, and no agent is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shard_core.capabilities.goals import GOAL_MAX_CHARS
from tests.integration.gateway.conftest import Servers, api, body, write_script
from tests.integration.gateway.test_registry import prompt
from tests.integration.gateway.ws_agent import WsAgent

GOAL = "port the parser to Rust & keep parse()"


def _goals(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(e["type"], e.get("goal", e.get("action"))) for e in events
            if e["type"] == "goal_update" or (e["type"] == "status" and e.get("goal"))]  # fmt: skip


async def test_a_goal_on_create(servers: Servers, workspace: Path) -> None:
    model = write_script(workspace.parent, [{"text": "ok"}, {"text": "ok"}])
    server = servers.start()
    long = {"cwd": str(workspace), "model": model, "goal": "x" * (GOAL_MAX_CHARS + 1)}
    refused = await api(server, "POST", "/shard/api/agents", long)
    assert refused.code == 400
    assert body(refused)["message"] == (
        f"goal: the goal is {GOAL_MAX_CHARS + 1} characters; the limit is {GOAL_MAX_CHARS}. "
        "Say the objective in fewer words; nothing was changed."
    )
    assert body(await api(server, "GET", "/shard/api/agents")) == {"agents": []}

    created = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model, "goal": GOAL}
    )
    agent = body(created)
    client = await WsAgent.connect(server, agent["kernel_id"], "first")
    snapshot = await client.attach()
    assert ("goal_update", "set") in _goals(snapshot["events"])
    reply = await client.command({"type": "slash", "text": "/goal"})
    assert reply["ok"], reply
    assert f"Goal (active): {GOAL}" in reply["message"].replace("\\", "")
    await client.aclose()
    await prompt(server, agent["kernel_id"], "hello")
    late = await WsAgent.connect(server, agent["kernel_id"], "late")
    replayed = (await late.attach())["events"]
    seen = _goals(replayed)
    assert seen.count(("goal_update", "set")) == 1
    assert ("status", GOAL) in seen
    last = [e for e in replayed if e["type"] == "status"][-1]  # after a turn: still the goal
    assert last["goal"] == GOAL
    await late.aclose()
