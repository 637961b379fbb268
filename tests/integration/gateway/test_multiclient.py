"""Several WebSocket clients of one agent through jupyter_server: broadcast, roles, first answer
wins, asks that survive a disconnect, headless policy, a slow client that resyncs by seq."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.integration.gateway.conftest import Server, Servers, api, body, write_script
from tests.integration.gateway.ws_agent import WsAgent, gather_events

WRITE_THEN_DONE = [
    {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "hi\n"}}]},
    {"text": "Wrote it."},
]


async def create_agent(
    server: Server, workspace: Path, steps: list[dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    model = write_script(workspace.parent, steps, name=f"script-{len(steps)}-{id(steps)}.json")
    response = await api(
        server, "POST", "/shard/api/agents", {"cwd": str(workspace), "model": model, **fields}
    )
    assert response.code == 201, response.body
    return body(response)


async def test_three_clients_one_answer_wins_and_a_late_attach_sees_the_ask(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, WRITE_THEN_DONE)
    kernel = agent["kernel_id"]
    a, b, c = [await WsAgent.connect(server, kernel, f"client-{n}") for n in "abc"]
    await a.attach()
    await b.attach()
    snapshot_c = await c.attach(role="observer")
    start = snapshot_c["last_seq"]

    msg_id = a.sock.execute("write out.txt")
    requests = [await x.wait_event("permission_request") for x in (a, b, c)]
    assert len({r["request_id"] for r in requests}) == 1
    request_id = requests[0]["request_id"]

    refused = await c.answer(request_id)
    assert refused["ok"] is False

    d = await WsAgent.connect(server, kernel, "client-d")
    snapshot_d = await d.attach()
    assert [p["request_id"] for p in snapshot_d["pending_permissions"]] == [request_id]

    accepted = await b.answer(request_id)
    assert accepted == {**accepted, "ok": True}
    late = await a.answer(request_id, "deny")
    assert late["ok"] is False
    assert "already decided by client-b" in late["message"]

    assert (await a.wait_shell_reply(msg_id))["status"] == "ok"
    for x in (a, b, c, d):
        await x.wait_event("turn_end")
    await gather_events(a, b, c, d)
    assert a.seqs(start) == b.seqs(start) == c.seqs(start)
    assert [s for s, _ in a.seqs(start)] == sorted({s for s, _ in a.seqs(start)})
    resolved = [e for e in a.events if e["type"] == "permission_resolved"]
    assert [(e["decision"], e["decided_by"]) for e in resolved] == [("allow", "client-b")]
    assert (workspace / "out.txt").read_text() == "hi\n"
    assert d.seqs(snapshot_d["last_seq"]) == a.seqs(snapshot_d["last_seq"])
    for x in (a, b, c, d):
        await x.aclose()


async def test_a_client_that_drops_during_an_ask_gets_it_back_on_reattach(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, WRITE_THEN_DONE)
    kernel = agent["kernel_id"]
    first = await WsAgent.connect(server, kernel, "client-x")
    await first.attach()
    msg_id = first.sock.execute("write out.txt")
    request = await first.wait_event("permission_request")
    await first.aclose()  # the tab closes mid-ask: no comm_close, the ask stays open

    await asyncio.sleep(0.5)
    again = await WsAgent.connect(server, kernel, "client-x")
    snapshot = await again.attach(since=request["seq"])
    assert [p["request_id"] for p in snapshot["pending_permissions"]] == [request["request_id"]]
    assert (await again.answer(request["request_id"]))["ok"] is True
    done = await again.wait_event("turn_end")
    assert done["reason"] == "completed"
    assert (workspace / "out.txt").exists()
    assert msg_id  # the execute_reply went to the closed socket's session; the turn still ended
    await again.aclose()


async def test_only_observers_attached_means_the_headless_policy_decides(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, WRITE_THEN_DONE)
    watcher = await WsAgent.connect(server, agent["kernel_id"], "dashboard")
    await watcher.attach(role="observer")
    msg_id = watcher.sock.execute("write out.txt")
    resolved = await watcher.wait_event("permission_resolved")
    assert (resolved["decision"], resolved["source"]) == ("deny", "headless")
    assert (await watcher.wait_shell_reply(msg_id))["status"] == "ok"
    assert not (workspace / "out.txt").exists()
    await watcher.aclose()


async def test_a_closed_websocket_detaches_its_client_at_once(
    servers: Servers, workspace: Path
) -> None:
    """A tab closes without comm_close: the server closes its `shard` comm for it, so the agent
    neither lists it as attached nor waits for it to answer (its heartbeat would take 60 s)."""
    server = servers.start()
    agent = await create_agent(server, workspace, WRITE_THEN_DONE)
    url = f"/shard/api/agents/{agent['id']}"
    tab = await WsAgent.connect(server, agent["kernel_id"], "tab")
    await tab.attach()
    watcher = await WsAgent.connect(server, agent["kernel_id"], "dashboard")
    await watcher.attach(role="observer")

    async def roles() -> dict[str, int]:
        return body(await api(server, "GET", url))["clients_by_role"]

    for _ in range(50):
        if await roles() == {"interactive": 1, "observer": 1}:
            break
        await asyncio.sleep(0.1)
    assert await roles() == {"interactive": 1, "observer": 1}
    await tab.aclose()
    for _ in range(50):
        if await roles() == {"interactive": 0, "observer": 1}:
            break
        await asyncio.sleep(0.1)
    assert await roles() == {"interactive": 0, "observer": 1}

    msg_id = watcher.sock.execute("write out.txt")
    resolved = await watcher.wait_event("permission_resolved")
    assert (resolved["decision"], resolved["source"]) == ("deny", "headless")
    assert (await watcher.wait_shell_reply(msg_id))["status"] == "ok"
    await watcher.aclose()


async def test_a_slow_client_delays_nobody_and_resyncs_by_seq(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    steps = [
        {"text": f"step {n} " * 40, "tool_calls": [{"name": "ls", "input": {"path": "."}}]}
        for n in range(30)
    ]
    agent = await create_agent(server, workspace, [*steps, {"text": "done"}])
    kernel = agent["kernel_id"]
    fast = await WsAgent.connect(server, kernel, "fast")
    slow = await WsAgent.connect(server, kernel, "slow")
    await fast.attach()
    snapshot = await slow.attach(role="observer")
    start = snapshot["last_seq"]
    read_at_attach = len(slow.events)  # what came with the snapshot (a status, under load)

    msg_id = fast.sock.execute("list it thirty times")
    assert (await fast.wait_shell_reply(msg_id, within=60))["status"] == "ok"
    await fast.wait_event("turn_end")
    assert len(slow.events) == read_at_attach  # the slow client has read nothing of the turn

    await slow.wait_event("turn_end")
    await gather_events(fast, slow)
    assert slow.seqs(start) == fast.seqs(start)
    seqs = [s for s, _ in slow.seqs(start)]
    assert seqs == list(range(start + 1, start + 1 + len(seqs)))  # no gap

    # drop half of what it has, as if the server had: the gap shows, sync fills it from the log
    kept = [e for e in slow.events if e["seq"] <= start + 10 or e["seq"] > start + 60]
    missing = sorted({e["seq"] for e in slow.events} - {e["seq"] for e in kept})
    synced = await slow.command(
        {"type": "sync", "since": missing[0] - 1, "until": missing[-1]}, kind="snapshot"
    )
    durable = [
        (e["seq"], e["type"])
        for e in fast.events
        if missing[0] <= e["seq"] <= missing[-1] and e["type"] != "message_delta"
    ]
    assert [(e["seq"], e["type"]) for e in synced["events"]] == durable
    await fast.aclose()
    await slow.aclose()
