"""Pushed orchestrator events on `/shard/api/events`: spawned on create, exited on kill, status
changes of a turn, resume with `since` losing nothing, a gap when it cannot resume, and the
route's token and Origin checks."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from shard_core.protocol.orchestrator import AgentsSnapshotEvent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayError, GatewayLink
from tests.integration.gateway.conftest import (
    TOKEN,
    Server,
    Servers,
    api,
    body,
    free_port,
    start_process,
    write_script,
)
from tests.integration.gateway.test_registry import prompt

SPAWN_WITHIN = 1.0
"""The issue's bound: a subscriber sees agent_spawned within 1 s of a create's answer (the event
is pushed when the start completes, so this is far from the usual wait)."""


async def until(feed: EventFeed, kind: str, agent_id: str, within: float = 30.0) -> Any:
    async def wait() -> Any:
        while True:
            event = await feed.next_event()
            if event.type == kind and getattr(event, "agent_id", None) in (agent_id, None):
                row = getattr(event, "agent", None)
                if row is None or row.id == agent_id:
                    return event

    return await asyncio.wait_for(wait(), within)


async def create(server: Server, workspace: Path, name: str, model: str | None = None) -> Any:
    request = {"cwd": str(workspace), "name": name, **({"model": model} if model else {})}
    created = await api(server, "POST", "/shard/api/agents", request)
    assert created.code == 201, created.body
    return body(created)


async def test_spawned_exited_and_status_are_pushed(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    feed = EventFeed(GatewayLink(server.url, TOKEN))
    await feed.connect()
    first = await feed.next_event()
    assert isinstance(first, AgentsSnapshotEvent)
    assert (first.agents, first.gap, first.seq) == ([], False, 0)

    model = write_script(workspace.parent, [{"text": "Done."}])
    agent = await create(server, workspace, "pushed", model)
    spawned = await until(feed, "agent_spawned", agent["id"], within=SPAWN_WITHIN)
    assert spawned.agent.runtime_state == "running"
    assert spawned.agent.kernel_id == agent["kernel_id"]

    await prompt(server, agent["kernel_id"], "hello")
    streaming = await until(feed, "agent_status_changed", agent["id"])
    statuses = [streaming.status]
    while statuses[-1] != "idle" or len(statuses) < 2:
        statuses.append((await until(feed, "agent_status_changed", agent["id"])).status)
    assert "streaming" in statuses
    assert statuses[-1] == "idle"
    assert feed.agents[agent["id"]].usage.output_tokens > 0  # the row carries the turn's usage

    killed = await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    assert killed.code == 200
    exited = await until(feed, "agent_exited", agent["id"])
    assert exited.agent is not None
    assert exited.agent.runtime_state == "stopped"
    assert feed.agents[agent["id"]].runtime_state == "stopped"

    seqs = [feed.last_seq]
    assert seqs[0] is not None
    assert seqs[0] >= 3
    await feed.close()


async def test_a_resumed_subscription_misses_nothing(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    link = GatewayLink(server.url, TOKEN)
    witness, resumer = EventFeed(link), EventFeed(link)
    await witness.connect()
    await resumer.connect()
    snapshot = await resumer.next_event()
    assert isinstance(snapshot, AgentsSnapshotEvent)
    assert not snapshot.gap
    await witness.next_event()

    one = await create(server, workspace, "one")
    await until(resumer, "agent_spawned", one["id"])
    resumer.drop()  # the network fails: no close handshake
    await resumer.close()

    two = await create(server, workspace, "two")  # happens while nobody resumes
    await api(server, "DELETE", f"/shard/api/agents/{one['id']}")
    await until(witness, "agent_exited", one["id"])
    await api(server, "DELETE", f"/shard/api/agents/{two['id']}")
    await until(witness, "agent_exited", two["id"])
    seen = witness.last_seq
    assert seen is not None

    await resumer.connect()  # with since = the last seq it read, and its epoch
    after: list[Any] = []
    while resumer.last_seq != seen:
        after.append(await asyncio.wait_for(resumer.next_event(reconnect=False), 30))
    assert not any(isinstance(e, AgentsSnapshotEvent) for e in after)  # resumed, not resynced
    assert [e.seq for e in after] == list(range(after[0].seq, seen + 1))  # no seq skipped
    assert {a.id: a.runtime_state for a in resumer.agents.values()} == {
        one["id"]: "stopped",
        two["id"]: "stopped",
    }
    await witness.close()
    await resumer.close()


async def test_a_resume_that_cannot_be_served_is_a_gap(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    agent = await create(server, workspace, "listed")
    feed = EventFeed(GatewayLink(server.url, TOKEN), epoch="0123456789ab", last_seq=3)
    await feed.connect()  # another gateway process's epoch: its seqs mean nothing here
    snapshot = await feed.next_event()
    assert isinstance(snapshot, AgentsSnapshotEvent)
    assert snapshot.gap is True
    assert [a.id for a in snapshot.agents] == [agent["id"]]
    assert feed.epoch != "0123456789ab"
    assert feed.gaps == 1
    await feed.close()

    future = EventFeed(GatewayLink(server.url, TOKEN), epoch=snapshot.epoch, last_seq=10**6)
    await future.connect()  # a seq this gateway never reached
    assert (await future.next_event()).gap is True  # type: ignore[union-attr]
    await future.close()


async def handshake(server: Server, query: str, headers: dict[str, str]) -> int:
    url = f"ws://127.0.0.1:{server.port}/shard/api/events{query}"
    try:
        conn = await websocket_connect(HTTPRequest(url, headers=headers))
    except HTTPClientError as exc:
        return exc.code
    conn.close()
    return 101


async def test_the_events_socket_checks_token_origin_and_arguments(servers: Servers) -> None:
    server = servers.start("--allow-origin", "https://lab.example.org")
    auth = {"Authorization": f"token {TOKEN}"}
    assert await handshake(server, "", {}) == 403
    assert await handshake(server, "", {"Authorization": "token wrong-token-123456"}) == 403
    assert await handshake(server, "", {**auth, "Origin": "https://evil.example"}) == 403
    assert await handshake(server, "", {**auth, "Origin": "https://lab.example.org.evil"}) == 403
    assert await handshake(server, "", {**auth, "Origin": "https://lab.example.org"}) == 101
    assert await handshake(server, "", auth) == 101
    assert await handshake(server, "?since=abc", auth) == 400
    assert await handshake(server, "?since=-1", auth) == 400
    assert await handshake(server, "?epoch=../x&since=1", auth) == 400
    with pytest.raises(GatewayError, match=r"HTTP 403.*check the token"):
        await EventFeed(GatewayLink(server.url, "not-the-token-0000")).connect()
    log = server.log.read_text()
    assert TOKEN not in log
    assert "wrong-token-123456" not in log


def test_snapshot_wire_shape() -> None:
    event = AgentsSnapshotEvent(epoch="ab", seq=0, agents=[], ts=1.0)
    assert json.loads(event.model_dump_json()) == {
        "type": "agents_snapshot",
        "epoch": "ab",
        "seq": 0,
        "agents": [],
        "gap": False,
        "ts": 1.0,
    }


async def test_events_from_a_kernel_gateway_that_lists_no_kernels(
    servers: Servers, workspace: Path
) -> None:
    # jupyter-kernel-gateway's default: GET /api/kernels is refused; the watcher's periodic look
    # then reads each kernel's model instead, and says so once in the log, not every 2 s
    pytest.importorskip("kernel_gateway", reason="jupyter_kernel_gateway is a dev dependency")
    kg_port, kg_token = free_port(), "kg-events-token-8d2f61"
    kg_argv = [
        sys.executable, "-m", "kernel_gateway", "--KernelGatewayApp.ip=127.0.0.1",
        f"--KernelGatewayApp.port={kg_port}", "--KernelGatewayApp.port_retries=0",
    ]  # fmt: skip
    kg_env = {**servers.env, "KG_AUTH_TOKEN": kg_token}
    kg = start_process(kg_argv, kg_env, servers.root / "kg.log", kg_port, kg_token)
    servers.started.append(kg)
    server = servers.start(
        "--gateway-url", f"http://127.0.0.1:{kg_port}", env={"JUPYTER_GATEWAY_AUTH_TOKEN": kg_token}
    )
    feed = EventFeed(GatewayLink(server.url, TOKEN))
    await feed.connect()
    await feed.next_event()
    agent = await create(server, workspace, "remote")
    spawned = await until(feed, "agent_spawned", agent["id"])
    assert spawned.agent.runtime_state == "running"
    await asyncio.sleep(5)  # two periodic looks at least
    await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    await until(feed, "agent_exited", agent["id"])
    await feed.close()
    warnings = server.log.read_text().count("listing kernels failed")
    assert warnings == 1
