"""Issue 20 item 8: a malformed binary kernel WebSocket frame is refused at once (socket closed
with a reason) while the server keeps serving everyone else — agent kernels and any other."""

from __future__ import annotations

import asyncio
import struct
import time
from pathlib import Path
from typing import Any

from tornado.websocket import WebSocketClientConnection

from shard_kernel.gateway.client import V1_SUBPROTOCOL, KernelSocket, msg_type
from tests.integration.gateway.conftest import Server, Servers, api, body
from tests.integration.gateway.test_multiclient import create_agent
from tests.integration.gateway.test_wire import iopub_ready
from tests.integration.gateway.ws_agent import WsAgent

MILLIONS_OF_PARTS = (5_000_000).to_bytes(8, "little") + (16).to_bytes(8, "little")
"""16 bytes whose header claims 5 million offsets (jupyter_server's decoder loops over them)."""
LEGACY_MILLIONS = struct.pack("!iI", 2**31 - 1, 8)
"""The JSON protocol's binary frame, claiming 2**31 - 1 parts."""
WITHIN = 0.1
ATTEMPTS = 3


async def raw_socket(server: Server, kernel_id: str, *, v1: bool) -> WebSocketClientConnection:
    """A kernel WebSocket the server has finished opening (it answered a kernel_info_request):
    from then on a frame is read at once, so the time measured is the frame's alone."""
    sock = await KernelSocket.open(server.url, kernel_id, token=server.token, subprotocol=v1)
    assert sock.subprotocol == (V1_SUBPROTOCOL if v1 else None)
    msg_id = sock.send("shell", "kernel_info_request", {})
    while True:
        message = await sock.recv(within=30)
        assert message is not None
        if message["parent_header"].get("msg_id") == msg_id and msg_type(message) == (
            "kernel_info_reply"
        ):
            return sock.conn


async def send_and_time_close(conn: WebSocketClientConnection, frame: bytes) -> float:
    """Seconds from sending `frame` to the server's close arriving."""
    start = time.perf_counter()
    conn.write_message(frame, binary=True)
    while await asyncio.wait_for(conn.read_message(), 30) is not None:
        pass  # a message the kernel sent before
    elapsed = time.perf_counter() - start
    conn.close()  # the server closed it; this lets the client object go
    return elapsed


async def still_served(server: Server, other: WsAgent, code: str) -> dict[str, Any]:
    """Another client's execute_reply and a REST answer, both asked while the frame is sent."""
    msg_id = other.sock.execute(code)
    listed = asyncio.ensure_future(api(server, "GET", "/shard/api/agents"))
    reply = await other.wait_shell_reply(msg_id, within=30)
    assert (await listed).code == 200
    return reply


async def refuse_while_serving(
    server: Server, kernel_id: str, frame: bytes, *, v1: bool, code: str
) -> tuple[list[float], WebSocketClientConnection]:
    """`frame` sent on fresh sockets, ATTEMPTS times, each while another client executes `code`
    and a REST call is made (both must answer): the seconds each close took, the last socket."""
    other = await WsAgent.connect(server, kernel_id, "other")
    await iopub_ready(other)
    times: list[float] = []
    attackers: list[WebSocketClientConnection] = []
    for _ in range(ATTEMPTS):
        attackers.append(await raw_socket(server, kernel_id, v1=v1))
        closing = asyncio.ensure_future(send_and_time_close(attackers[-1], frame))
        assert (await still_served(server, other, code))["status"] == "ok"
        times.append(await closing)
    await other.aclose()
    return times, attackers[-1]


def assert_at_once(times: list[float], what: str) -> None:
    """The issue asks < 100 ms. The machine running the tests may be loaded (other test runs
    share its cores), so one slow close out of ATTEMPTS is scheduling, not the frame: the best
    must be under 100 ms, every one under a generous second."""
    shown = ", ".join(f"{t * 1000:.1f}" for t in times)
    print(f"{what}: closed in {shown} ms")
    assert min(times) < WITHIN, f"{what}: the socket took {shown} ms to close (< 100 ms asked)"
    assert max(times) < 1.0, f"{what}: the socket took {shown} ms to close"


async def test_a_frame_claiming_millions_of_parts_is_refused_at_once_on_an_agent_kernel(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    times, attacker = await refuse_while_serving(
        server, agent["kernel_id"], MILLIONS_OF_PARTS, v1=True, code="/help"
    )
    assert (attacker.close_code, attacker.close_reason) == (
        1003,
        "bad v1 frame: 5000000 offsets claimed, at most 262 allowed",
    )
    assert_at_once(times, "a malformed v1 frame on an agent kernel")
    assert "closed a kernel WebSocket" in server.log.read_text()


async def test_a_frame_claiming_millions_of_parts_is_refused_on_any_kernel(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    created = await api(server, "POST", "/api/kernels", {"name": "python3"})
    assert created.code == 201, created.body
    kernel_id = body(created)["id"]
    times, attacker = await refuse_while_serving(
        server, kernel_id, MILLIONS_OF_PARTS, v1=True, code="1 + 1"
    )
    assert attacker.close_code == 1003
    assert_at_once(times, "a malformed v1 frame on a python3 kernel")


async def test_a_json_client_is_unaffected_and_its_bad_binary_frame_refused(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    plain = await WsAgent.connect(server, agent["kernel_id"], "plain", subprotocol=False)
    assert plain.sock.subprotocol is None
    await iopub_ready(plain)
    assert (await plain.wait_shell_reply(plain.sock.execute("/help")))["status"] == "ok"
    await plain.aclose()
    times, attacker = await refuse_while_serving(
        server, agent["kernel_id"], LEGACY_MILLIONS, v1=False, code="/help"
    )
    assert (attacker.close_code, attacker.close_reason) == (
        1003,
        "bad binary frame: 2147483647 parts claimed, at most 257 allowed",
    )
    assert_at_once(times, "a malformed binary frame on the JSON protocol")


async def test_a_text_frame_on_the_v1_protocol_is_refused(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    agent = await create_agent(server, workspace, [{"text": "hi"}])
    attacker = await raw_socket(server, agent["kernel_id"], v1=True)
    attacker.write_message('{"channel": "shell"}')
    while await asyncio.wait_for(attacker.read_message(), 30) is not None:
        pass
    attacker.close()
    assert (attacker.close_code, attacker.close_reason) == (
        1003,
        "bad v1 frame: v1 frames are binary, this one is text",
    )
