"""A terminal client's presence is true: after `shard agents attach NAME --prompt …` exits, the
agent's client count is back to 0 (its detach went out before the socket closed), and
`--prompt "/status"` prints the command's output."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from shard_kernel.clients import HEARTBEAT_TTL
from tests.integration.gateway.conftest import Server, Servers, api, write_script
from tests.integration.gateway.test_agents_cli import run


async def _clients(server: Server, agent_id: str) -> int:
    response = await api(server, "GET", f"/shard/api/agents/{agent_id}")
    assert response.code == 200
    return int(json.loads(response.body)["clients"])


async def _created(server: Server, env: dict[str, str], workspace: Path) -> dict[str, object]:
    model = write_script(workspace.parent, [{"text": "Hello."}, {"text": "Again."}])
    made = await run(
        server, env, "create", "--cwd", str(workspace), "--name", "here", "--model", model, "--json"
    )
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)


async def test_a_terminal_client_is_gone_when_attach_exits(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await _created(server, servers.env, workspace)
    agent_id = str(agent["id"])

    attached = await run(server, servers.env, "attach", "here", "--prompt", "say hello")
    assert attached.returncode == 0, attached.stdout + attached.stderr
    assert "Hello." in attached.stdout

    # poll (no timed assertion): the count must come back to 0 well within the heartbeat TTL
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HEARTBEAT_TTL
    while (count := await _clients(server, agent_id)) != 0 and loop.time() < deadline:
        await asyncio.sleep(0.2)
    assert count == 0


async def test_attach_prompt_prints_a_commands_output(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    await _created(server, servers.env, workspace)

    shown = await run(server, servers.env, "attach", "here", "--prompt", "/status")

    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "clients" in shown.stdout
    assert "1 interactive" in shown.stdout  # this terminal, counted while it asked
    assert "**" not in shown.stdout  # the text/plain form, not the Markdown
