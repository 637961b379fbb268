"""`shard gateway` is headless: the front ends installed beside it (JupyterLab, Notebook 7,
jupyter_lsp) stay off unless the user's own `jpserver_extensions` setting names them, and its
start does not build jsonschema's IRI grammar (shard_kernel/lazy_iri.py)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.gateway.conftest import Servers, api
from tests.integration.gateway.test_multiclient import create_agent


def linked(log: str) -> set[str]:
    """The server extensions the server's log says it linked."""
    return {
        line.split("]", 1)[1].split("|", 1)[0].strip()
        for line in log.splitlines()
        if "| extension was successfully linked" in line
    }


async def test_the_gateway_serves_its_api_and_no_front_end(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    assert agent["kernel_id"]
    assert (await api(server, "GET", "/lab")).code == 404
    assert (await api(server, "GET", "/tree")).code == 404
    assert server.stop() == []
    assert linked(server.log.read_text()) == {"shard_kernel.gateway", "jupyter_server_terminals"}


async def test_the_users_extension_setting_turns_a_front_end_back_on(servers: Servers) -> None:
    chosen = "{'shard_kernel.gateway': True, 'jupyterlab': True}"
    server = servers.start("--set", f"ServerApp.jpserver_extensions={chosen}")
    assert (await api(server, "GET", "/lab")).code == 200
    assert (await api(server, "GET", "/shard/api/agents")).code == 200
    assert server.stop() == []
    assert {"jupyterlab", "shard_kernel.gateway"} <= linked(server.log.read_text())
