"""Shard under JupyterHub: a real hub (DummyAuthenticator, SimpleLocalProcessSpawner, node's
configurable-http-proxy from npm, tests/fixtures/hub_proxy.py) runs the documented config
(docs/deploy/jupyterhub/jupyterhub_config.py) on loopback. A user logs in through the
login form, starts a server, makes a hub API token; the single-user server lists, creates and
runs agents under /user/<name>/shard/api/…, and its kernel channels and pushed events answer
there too — with the hub's credentials only: no token, or another user's, is refused."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shard_core.protocol.orchestrator import AgentsSnapshotEvent
from shard_kernel.gateway.client import KernelSocket
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayLink
from tests.fixtures.hub_proxy import proxy_command
from tests.integration.gateway.conftest import Server, Servers, free_port, start_process
from tests.integration.gateway.ws_agent import WsAgent

requests = pytest.importorskip("requests")
pytest.importorskip("jupyterhub", reason="jupyterhub is a dev dependency")
REPO = Path(__file__).resolve().parents[3]
DOC_CONFIG = REPO / "docs" / "deploy" / "jupyterhub" / "jupyterhub_config.py"
BIN = Path(sys.executable).parent
SCRIPT = '{"name": "hub", "steps": [{"text": "Hello from the hub."}]}'


@dataclass
class Hub:
    server: Server
    url: str

    def login(self, user: str) -> Any:
        """A browser's session: the login form (with its _xsrf), then the hub's XSRF token."""
        session = requests.Session()
        session.get(f"{self.url}hub/login", timeout=30)
        form = {"username": user, "password": "any", "_xsrf": session.cookies.get("_xsrf")}
        landed = session.post(f"{self.url}hub/login", data=form, timeout=30)
        assert landed.status_code == 200, landed.text[:300]
        home = session.get(f"{self.url}hub/home", timeout=30).text
        found = re.search(r'xsrf_token:\s*"([^"]+)"', home)
        assert found is not None, "the hub's home page names no XSRF token"
        session.headers["X-XSRFToken"] = found.group(1)
        return session

    def start_server(self, session: Any, user: str) -> str:
        """Start the user's server and return a hub API token for it."""
        started = session.post(f"{self.url}hub/api/users/{user}/server", json={}, timeout=30)
        assert started.status_code in (201, 202), started.text[:300]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            model = session.get(f"{self.url}hub/api/users/{user}", timeout=30).json()
            if (model.get("servers") or {}).get("", {}).get("ready"):
                break
            time.sleep(0.3)
        else:
            raise AssertionError(f"{user}'s server did not become ready:\n{self.log()}")
        made = session.post(
            f"{self.url}hub/api/users/{user}/tokens", json={"note": "shard test"}, timeout=30
        )
        assert made.status_code == 201, made.text[:300]
        return str(made.json()["token"])

    def log(self) -> str:
        return self.server.log.read_text()[-4000:]


def start_hub(servers: Servers) -> Hub:
    root = servers.root
    proxy = proxy_command()
    if isinstance(proxy, str):
        pytest.skip(proxy)  # no npm or no registry: say why
    port, api_port, proxy_port = free_port(), free_port(), free_port()
    overlay = root / "jupyterhub_config.py"
    single_user_env = {
        k: servers.env[k]
        for k in ("JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR",
                  "IPYTHONDIR", "XDG_CONFIG_HOME", "JUPYTER_PLATFORM_DIRS")
    }  # fmt: skip
    overlay.write_text(
        "c = get_config()  # noqa\n"
        f"load_subconfig({str(DOC_CONFIG)!r})\n"
        f"c.JupyterHub.db_url = 'sqlite:///{root}/hub.sqlite'\n"
        f"c.JupyterHub.cookie_secret_file = '{root}/hub-cookie-secret'\n"
        f"c.JupyterHub.pid_file = '{root}/hub.pid'\n"
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{proxy_port}'\n"
        "c.ConfigurableHTTPProxy.auth_token = 'proxy-test-token-5e2a9c'\n"
        "c.Spawner.args = ['--allow-root']  # CI runs as root\n"
        f"c.Spawner.environment = {{**c.Spawner.environment, **{single_user_env!r}}}\n"
    )
    env = {
        **servers.env,
        "PATH": f"{BIN}:{servers.env.get('PATH', '')}",
        "SHARD_HUB_URL": f"http://127.0.0.1:{port}",
        "SHARD_HUB_API_URL": f"http://127.0.0.1:{api_port}",
        "SHARD_HUB_HOMES": str(root / "homes" / "{username}"),
        "SHARD_HUB_STATE": str(root / "hub-state"),
        "SHARD_HUB_PROXY": str(proxy),
    }
    argv = [str(BIN / "jupyterhub"), "-f", str(overlay)]
    server = start_process(argv, env, root / "jupyterhub.log", port, "")
    servers.started.append(server)
    hub = Hub(server, f"http://127.0.0.1:{port}/")
    deadline = time.monotonic() + 90
    while requests.get(f"{hub.url}hub/api", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, hub.log()
        time.sleep(0.3)
    return hub


async def test_shard_under_jupyterhub(servers: Servers) -> None:
    hub = await asyncio.to_thread(start_hub, servers)
    alice = await asyncio.to_thread(hub.login, "alice")
    token = await asyncio.to_thread(hub.start_server, alice, "alice")
    base = f"{hub.url}user/alice/"
    auth = {"Authorization": f"token {token}"}

    listed = requests.get(f"{base}shard/api/agents", headers=auth, timeout=30)
    assert (listed.status_code, listed.json()) == (200, {"agents": []}), hub.log()

    workspace = servers.root / "homes" / "alice" / "project"
    workspace.mkdir(parents=True)
    script = workspace.parent / "hub-script.json"
    script.write_text(SCRIPT)
    feed = EventFeed(GatewayLink(base, token))
    await feed.connect()  # the pushed events answer under the hub's URL too
    assert isinstance(await feed.next_event(), AgentsSnapshotEvent)
    created = await asyncio.to_thread(
        requests.post,
        f"{base}shard/api/agents",
        json={"cwd": str(workspace), "model": f"scripted/{script}", "name": "hubbed"},
        headers=auth,
        timeout=120,
    )
    assert created.status_code == 201, created.text
    agent = created.json()
    assert agent["channels"] == f"/user/alice/api/kernels/{agent['kernel_id']}/channels"
    spawned = await asyncio.wait_for(feed.next_event(), 30)
    while spawned.type != "agent_spawned":
        spawned = await asyncio.wait_for(feed.next_event(), 30)
    await feed.close()

    sock = await KernelSocket.open(base, agent["kernel_id"], token=token)
    client = WsAgent(sock, "hub-client")
    assert (await client.attach())["agent_id"] == agent["id"]
    msg_id = sock.execute("hello")
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"
    end = await client.wait_event("turn_end")
    assert end["reason"] == "completed"
    said = [
        b.get("text")
        for e in client.events
        if e["type"] == "message_complete"
        for b in e["message"]["content"]
    ]
    assert said == ["Hello from the hub."]
    await client.aclose()
    listed_by_cli = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "shard_kernel.cli", "agents", "list", "--url", base,
         "--token", token, "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert listed_by_cli.returncode == 0, listed_by_cli.stderr
    assert [a["name"] for a in json.loads(listed_by_cli.stdout)] == ["hubbed"]
    state = servers.root / "hub-state" / "alice" / "agents" / agent["id"]
    assert (state / "events.jsonl").is_file()  # SHARD_HOME from the spawner's environment

    # the hub decides who gets in: no credentials, or another user's, are refused
    anonymous = requests.get(f"{base}shard/api/agents", timeout=30)
    assert anonymous.status_code in (302, 401, 403)
    bob = await asyncio.to_thread(hub.login, "bob")
    bob_token = await asyncio.to_thread(hub.start_server, bob, "bob")
    other = requests.get(
        f"{base}shard/api/agents", headers={"Authorization": f"token {bob_token}"}, timeout=30
    )
    assert other.status_code in (403, 404)
    theirs = requests.get(
        f"{hub.url}user/bob/shard/api/agents",
        headers={"Authorization": f"token {bob_token}"},
        timeout=30,
    )
    assert (theirs.status_code, theirs.json()) == (200, {"agents": []})  # bob's own registry
