"""What the gateway's clients see on the wire: the v1 subprotocol, event batches, client counts
by role in the registry, and an agent that cannot start listed as failed (with a reason)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from shard_kernel.gateway.client import V1_SUBPROTOCOL, msg_type
from tests.integration.gateway.conftest import Server, Servers, api, body
from tests.integration.gateway.test_canaries import kernel_pids
from tests.integration.gateway.test_multiclient import create_agent
from tests.integration.gateway.ws_agent import WsAgent

BURSTS = [
    {"text": f"step {n} " * 20, "tool_calls": [{"name": "ls", "input": {"path": "."}}]}
    for n in range(10)
] + [{"text": "done"}]


async def info_when(
    server: Server, agent_id: str, check: Any, within: float = 30.0
) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        info = body(await api(server, "GET", f"/shard/api/agents/{agent_id}"))
        if check(info) or time.monotonic() > deadline:
            return info
        await asyncio.sleep(0.1)


async def test_bursts_arrive_batched_and_unpacked_in_seq_order(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, BURSTS)
    a = await WsAgent.connect(server, agent["kernel_id"], "a")
    plain = await WsAgent.connect(server, agent["kernel_id"], "plain", subprotocol=False)
    assert (a.sock.subprotocol, plain.sock.subprotocol) == (V1_SUBPROTOCOL, None)
    start = (await a.attach())["last_seq"]
    await plain.attach(role="observer")

    frames = a.sock.frames
    a.sock.comm_send(a.comm_id, {"type": "prompt", "text": "go"})  # events only, no cell outputs
    await a.wait_event("turn_end")
    await plain.wait_event("turn_end")
    seqs = [s for s, _ in a.seqs(start)]
    assert seqs == list(range(start + 1, start + 1 + len(seqs)))  # every event, in order
    assert plain.seqs(start) == a.seqs(start)  # the JSON protocol carries the same batches
    assert a.sock.batches > 0  # a step's message_complete, usage, tool_call… leave together
    assert a.sock.frames - frames < len(seqs)
    await a.aclose()
    await plain.aclose()


async def test_the_registry_counts_shard_clients_by_role(servers: Servers, workspace: Path) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    listed = body(await api(server, "GET", f"/shard/api/agents/{agent['id']}"))
    assert (listed["clients"], listed["clients_by_role"]) == (0, {"interactive": 0, "observer": 0})

    lurker = await WsAgent.connect(server, agent["kernel_id"], "lurker")  # a socket, no comm
    await lurker.pump(0.2)
    a = await WsAgent.connect(server, agent["kernel_id"], "a")
    b = await WsAgent.connect(server, agent["kernel_id"], "b")
    await a.attach()
    await b.attach(role="observer")
    roles = {"interactive": 1, "observer": 1}
    info = await info_when(server, agent["id"], lambda i: i["clients_by_role"] == roles)
    assert (info["clients"], info["clients_by_role"]) == (2, roles)
    status = await a.wait_event("status")
    assert status["clients"] is not None  # every status says who is attached

    b.sock.comm_close(b.comm_id)
    roles = {"interactive": 1, "observer": 0}
    info = await info_when(server, agent["id"], lambda i: i["clients_by_role"] == roles)
    assert (info["clients"], info["clients_by_role"]) == (1, roles)
    for client in (lurker, a, b):
        await client.aclose()


async def test_an_agent_that_cannot_start_is_listed_as_failed_with_a_reason(
    servers: Servers, workspace: Path, tmp_path: Path
) -> None:
    server = servers.start()
    doomed = tmp_path / "doomed"
    doomed.mkdir()
    agent = await create_agent(server, doomed, [{"text": "hi"}])
    assert body(await api(server, "DELETE", f"/shard/api/agents/{agent['id']}"))["error"] is None
    shutil.rmtree(doomed)  # its cwd is gone: the next start of its kernel cannot boot the agent

    attached = await api(server, "POST", f"/shard/api/agents/{agent['id']}/attach")
    assert attached.code == 200, attached.body
    info = await info_when(server, agent["id"], lambda i: i["runtime_state"] == "failed")
    assert (info["runtime_state"], info["status"]) == ("failed", "error")
    assert "could not start" in info["error"]
    assert "is not a directory" in info["error"]
    assert "Traceback" not in info["error"]
    assert server.token not in info["error"]
    listed = body(await api(server, "GET", "/shard/api/agents"))["agents"]
    assert [a["runtime_state"] for a in listed] == ["failed"]

    client = await WsAgent.connect(server, body(attached)["kernel_id"], "late")
    await client.pump(0.3)
    msg_id = client.sock.execute("hello")
    reply = await client.wait_shell_reply(msg_id)
    assert reply["status"] == "error"
    assert "could not start" in reply["evalue"]
    await client.aclose()

    doomed.mkdir()  # fixed: a kill and a new attach bring it back
    await api(server, "DELETE", f"/shard/api/agents/{agent['id']}")
    await api(server, "POST", f"/shard/api/agents/{agent['id']}/attach")
    info = await info_when(server, agent["id"], lambda i: i["status"] == "idle", within=5)
    assert (info["runtime_state"], info["error"]) == ("running", None)


async def test_a_reconnect_with_the_same_session_gets_what_the_server_buffered(
    servers: Servers, workspace: Path
) -> None:
    # agent kernels' sockets share one IOPub subscription: jupyter_server's buffering of the
    # last connection's messages, and their replay to the same session, must still work
    server = servers.start()
    agent = await create_agent(server, workspace, BURSTS)
    first = await WsAgent.connect(server, agent["kernel_id"], "a", session_id="same-session")
    start = (await first.attach())["last_seq"]
    first.sock.comm_send(first.comm_id, {"type": "prompt", "text": "go"})
    await first.wait_event("turn_start")
    await first.aclose()  # the last connection: the server buffers what the kernel sends meanwhile

    info = await info_when(server, agent["id"], lambda i: i["status"] == "idle")
    assert info["status"] == "idle"  # the turn finished while nobody was connected
    again = await WsAgent.connect(server, agent["kernel_id"], "a", session_id="same-session")
    await again.wait_event("turn_end")  # replayed from the server's buffer
    replayed = [s for s, _ in again.seqs(start)]
    assert replayed == list(range(replayed[0], replayed[-1] + 1))  # in order, nothing skipped
    # (what was in flight while the socket closed is lost, as with any kernel: seq shows that
    # gap and `sync` fills it, see test_multiclient)
    await again.aclose()


async def test_the_same_socket_keeps_working_across_a_kernel_crash(
    servers: Servers, workspace: Path
) -> None:
    # the shared IOPub subscription follows the restarted kernel (same ports) for open sockets
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "one"}, {"text": "two"}])
    client = await WsAgent.connect(server, agent["kernel_id"], "stays")
    await client.attach()
    first = client.sock.execute("hello")
    assert (await client.wait_shell_reply(first))["status"] == "ok"
    (pid,) = kernel_pids(server)
    os.kill(pid, signal.SIGKILL)

    def restarting() -> bool:
        return any(
            msg_type(m) == "status" and m["content"].get("execution_state") == "restarting"
            for m in client.messages
        )

    await client.wait_for(restarting)
    await iopub_ready(client)  # as JupyterLab does: the new process's IOPub reaches us again
    snapshot = await client.attach(since=-1)  # the new process: attach again, same socket
    assert any(e["type"] == "restarted" for e in snapshot["events"])
    after = len(client.events)
    msg_id = client.sock.execute("are you back?")
    assert (await client.wait_shell_reply(msg_id))["status"] == "ok"
    await client.wait_event("turn_end", after=after)  # events flow on the same socket again
    await client.aclose()


async def iopub_ready(client: WsAgent, tries: int = 60) -> None:
    """Send kernel_info until the kernel's `busy` for it arrives on IOPub (ZMQ subscriptions
    to a restarted kernel take a moment to reconnect; what it publishes before is lost)."""
    for _ in range(tries):
        msg_id = client.sock.send("shell", "kernel_info_request", {})

        def seen(msg_id: str = msg_id) -> bool:
            return any(
                m.get("channel") == "iopub" and m["parent_header"].get("msg_id") == msg_id
                for m in client.messages
            )

        try:
            await client.wait_for(seen, within=1.0)
            return
        except TimeoutError:
            continue
    raise TimeoutError("the restarted kernel never answered on IOPub")


def _cell_iopub(client: WsAgent, msg_id: str) -> list[tuple[str, str, Any]]:
    return [
        (msg_type(m), m["header"]["msg_id"], m["content"])
        for m in client.messages
        if m.get("channel") == "iopub" and m["parent_header"].get("msg_id") == msg_id
    ]


async def test_v1_clients_get_the_messages_json_clients_get(
    servers: Servers, workspace: Path
) -> None:
    # an agent kernel's IOPub messages and replies reach v1 clients as WebSocket frames Shard
    # builds itself (connection.py); JSON clients get jupyter_server's own encoding
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    v1 = await WsAgent.connect(server, agent["kernel_id"], "v1")
    plain = await WsAgent.connect(server, agent["kernel_id"], "plain", subprotocol=False)
    # the handshake is done before the server's side opens: jupyter_server then nudges the
    # kernel and its nudge takes the first IOPub message that comes, another client's too
    for client in (v1, plain):
        await iopub_ready(client)
    replies = []
    for asking in (v1, plain):
        msg_id = asking.sock.execute("/help")
        replies.append(await asking.wait_shell_reply(msg_id))
        for client in (v1, plain):
            await client.wait_for(lambda c=client, m=msg_id: ("status", "idle") in _states(c, m))
        seen = _cell_iopub(v1, msg_id)
        assert [kind for kind, _, _ in seen] == [
            "status", "execute_input", "display_data", "status"
        ]  # fmt: skip
        assert seen == _cell_iopub(plain, msg_id)
    assert [r["status"] for r in replies] == ["ok", "ok"]
    await v1.aclose()
    await plain.aclose()


def _states(client: WsAgent, msg_id: str) -> list[tuple[str, str]]:
    return [
        (msg_type(m), m["content"].get("execution_state", ""))
        for m in client.messages
        if m.get("channel") == "iopub" and m["parent_header"].get("msg_id") == msg_id
    ]


async def test_a_server_that_hides_tracebacks_hides_them_from_v1_clients_too(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start("--set", "MappingKernelManager.allow_tracebacks=False")
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    client = await WsAgent.connect(server, agent["kernel_id"], "v1")
    assert client.sock.subprotocol == V1_SUBPROTOCOL
    msg_id = client.sock.execute("/no-such-command")
    assert (await client.wait_shell_reply(msg_id))["status"] == "error"
    await client.wait_for(lambda: ("status", "idle") in _states(client, msg_id))
    (error,) = [content for kind, _, content in _cell_iopub(client, msg_id) if kind == "error"]
    assert (error["ename"], error["evalue"]) == ("ExecutionError", "Execution error")
    assert "no-such-command" not in str(error["traceback"])
    await client.aclose()
