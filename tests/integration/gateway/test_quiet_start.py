"""A clean gateway run says nothing alarming: no tornado warning about jupyter_server's own
WebSocket ping values once a client has connected (it logs that warning at the first socket)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Servers
from tests.integration.gateway.test_multiclient import create_agent
from tests.integration.gateway.ws_agent import WsAgent


async def test_a_kernel_websocket_logs_no_ping_timeout_warning(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    client = await WsAgent.connect(server, agent["kernel_id"], "quiet")
    await client.attach()  # the socket is open and answered: tornado has read its ping settings
    await client.aclose()
    assert server.stop() == []
    log = server.log.read_text()
    assert "Shard gateway:" in log  # the log is the server's
    assert "websocket_ping_timeout" not in log
