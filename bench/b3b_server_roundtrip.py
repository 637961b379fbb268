"""B3b: a no-op prompt's round trip through jupyter_server's kernel WebSocket, shard vs ipykernel.

One `shard gateway` serves both kinds of kernel: Shard agents (an empty cell: the kernel answers
without running a turn) and stock ipykernel (`python3`, an empty cell). Each kind gets three
clients, measured in the same run, each on a kernel of its own (so the server relays, and the
bench reads, only the measured client's messages):

- `v1`: a WebSocket speaking the `v1.kernel.websocket.jupyter.org` subprotocol (what JupyterLab
  uses: the server forwards the kernel's frames without parsing them),
- `json`: a WebSocket on the plain JSON protocol (the server parses and re-encodes every message),
- `zmq`: jupyter_client straight to the kernel's ZMQ ports (its connection file, in the server's
  runtime dir) — no server at all.

And two rows labelled `floor` (bench/_floor.py), measured in the same rotation: what this machine
can do at all in Python, with no Jupyter code on the path — `floor zmq echo`: a pyzmq DEALER in
the bench process to a ROUTER echo in a second process (the same zmq.asyncio the `zmq` client
uses); `floor ws relay`: the same WebSocket client to a minimal tornado relay that forwards each
message over ZMQ to that echo and back (the least any Python relay can cost). The echo stamps its
receive time, so `in` and `out` split the same way (`kernel` is 0).

A sample is execute_request sent → execute_reply received; then an untimed wait for the
kernel's `idle`, so each sample starts on a quiet kernel. Arms take turns (order rotating).
Per-hop split from the kernel's own message timestamps (same clock, µs resolution): `in` =
request sent → the kernel's `busy` (client → server → kernel picks it up), `kernel` = `busy` →
the reply's header date, `out` = reply's date → received (kernel → server → client).
Goal: shard p99 ≤ 5 ms over loopback.

    python bench/b3b_server_roundtrip.py [--samples 1000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import zmq
import zmq.asyncio
from jupyter_client.asynchronous.client import AsyncKernelClient

from bench import _floor
from bench._common import machine, ms, percentile, ratio, table
from bench._gateway import TOKEN, Gateway, free_port, start_gateway
from shard_kernel.gateway.client import V1_SUBPROTOCOL, KernelSocket, encode_v1, msg_type

CELL = {"silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}


@dataclass
class Sample:
    total: float
    hops: tuple[float, float, float]  # in, kernel, out


@dataclass
class Arm:
    kernel: str
    transport: str
    run: Callable[[], Awaitable[Sample]]
    samples: list[Sample] = field(default_factory=list[Sample])


def _date(header: dict[str, Any]) -> float:
    value = header["date"]
    return (
        value.timestamp()
        if isinstance(value, datetime)
        else datetime.fromisoformat(value).timestamp()
    )


def _split(sent: float, got: float, busy: dict[str, Any], reply: dict[str, Any]) -> Sample:
    kernel_in, kernel_out = _date(busy["header"]), _date(reply["header"])
    return Sample(got - sent, (kernel_in - sent, kernel_out - kernel_in, got - kernel_out))


def ws_arm(sock: KernelSocket) -> Callable[[], Awaitable[Sample]]:
    async def run() -> Sample:
        sent = time.time()
        msg_id = sock.execute("")
        busy = reply = None
        got = 0.0
        idle = False
        while reply is None or not idle:
            message = await sock.recv(30)
            if message is None:
                raise RuntimeError("the WebSocket closed")
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind = msg_type(message)
            if kind == "execute_reply":
                got, reply = time.time(), message
            elif kind == "status":
                state = message["content"]["execution_state"]
                busy = message if state == "busy" else busy
                idle = idle or state == "idle"
        assert busy is not None
        return _split(sent, got, busy, reply)

    return run


def zmq_arm(kc: AsyncKernelClient) -> Callable[[], Awaitable[Sample]]:
    async def run() -> Sample:
        sent = time.time()
        msg_id = kc.execute("", **CELL)
        while True:
            reply = await kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                got = time.time()
                break
        busy = None
        while True:
            message = await kc.get_iopub_msg(timeout=30)
            if message["parent_header"].get("msg_id") != msg_id or message["msg_type"] != "status":
                continue
            if message["content"]["execution_state"] == "busy":
                busy = message
            else:
                break
        assert busy is not None
        return _split(sent, got, busy, reply)

    return run


async def zmq_client(gateway: Gateway, kernel_id: str) -> AsyncKernelClient:
    kc = AsyncKernelClient()
    kc.load_connection_file(str(gateway.root / "jupyter_runtime_dir" / f"kernel-{kernel_id}.json"))
    kc.start_channels(hb=False)  # a heartbeat missed while 6 kernels start is no death here
    await kc.wait_for_ready(timeout=60)
    while True:  # drain what the ready handshake left behind
        try:
            await kc.get_iopub_msg(timeout=0.2)
        except Exception:
            return kc


def _request_frame() -> bytes:
    """An execute_request of an empty cell as a v1 frame: what the kernel clients send."""
    header = {
        "msg_id": uuid.uuid4().hex,
        "msg_type": "execute_request",
        "username": "bench",
        "session": "floor",
        "date": datetime.now(UTC).isoformat(),
        "version": "5.3",
    }
    content = {"code": "", **CELL, "stop_on_error": True}
    return encode_v1("shell", [json.dumps(p).encode() for p in (header, {}, {}, content)])


def _stamped(sent: float, got: float, stamp: bytes) -> Sample:
    (echoed,) = _floor.STAMP.unpack(stamp)
    return Sample(got - sent, (echoed - sent, 0.0, got - echoed))


def floor_zmq_arm(dealer: zmq.asyncio.Socket) -> Callable[[], Awaitable[Sample]]:
    async def run() -> Sample:
        sent = time.time()
        await dealer.send(_request_frame())
        stamp, _ = await dealer.recv_multipart()
        return _stamped(sent, time.time(), stamp)

    return run


def floor_ws_arm(sock: KernelSocket) -> Callable[[], Awaitable[Sample]]:
    async def run() -> Sample:
        sent = time.time()
        sock.conn.write_message(_request_frame(), binary=True)
        raw = await asyncio.wait_for(sock.conn.read_message(), 30)
        if not isinstance(raw, bytes):
            raise RuntimeError("the floor relay closed")
        return _stamped(sent, time.time(), raw[: _floor.STAMP.size])

    return run


async def floor_arms(closers: list[Callable[[], Any]]) -> list[Arm]:
    """The echo and the relay in their own processes, and one client of each."""
    echo_port, relay_port = free_port(), free_port()
    procs = [_floor.spawn("echo", str(echo_port)),
             _floor.spawn("relay", str(relay_port), str(echo_port))]  # fmt: skip
    closers[:0] = [lambda p=p: _floor.stop(p) for p in procs]  # run last: after the clients
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", relay_port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
    dealer = zmq.asyncio.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    dealer.connect(f"tcp://127.0.0.1:{echo_port}")
    sock = await KernelSocket.open(f"http://127.0.0.1:{relay_port}/", "floor")
    closers[:0] = [dealer.close, sock.aclose]
    return [Arm("floor", "zmq echo", floor_zmq_arm(dealer)),
            Arm("floor", "ws relay", floor_ws_arm(sock))]  # fmt: skip


async def measure(gateway: Gateway, samples: int, warmup: int) -> list[Arm]:
    arms: list[Arm] = []
    closers: list[Callable[[], Any]] = []
    try:
        for kernel in ("shard", "ipykernel"):
            for transport in ("v1", "json", "zmq"):
                arms.append(await _arm(gateway, kernel, transport, closers))
        arms += await floor_arms(closers)
        for i in range(warmup + samples):
            shift = i % len(arms)
            for arm in arms[shift:] + arms[:shift]:
                sample = await arm.run()
                if i >= warmup:
                    arm.samples.append(sample)
    finally:
        for close in closers:
            if inspect.isawaitable(done := close()):
                await done  # a WebSocket's closing handshake, before asyncio.run stops the loop
    return arms


async def _arm(gateway: Gateway, kernel: str, transport: str, closers: list[Any]) -> Arm:
    """A kernel of its own for each arm: its only client is the one measured (another client
    of the same kernel would make the server relay, and the bench read, every IOPub message
    of this arm's samples once more)."""
    if kernel == "shard":
        kernel_id = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace()})[
            "kernel_id"
        ]
    else:
        kernel_id = gateway.rest("POST", "/api/kernels", {"name": "python3"})["id"]
    if transport == "zmq":
        kc = await zmq_client(gateway, kernel_id)
        closers.insert(0, kc.stop_channels)
        return Arm(kernel, transport, zmq_arm(kc))
    sock = await KernelSocket.open(
        gateway.url, kernel_id, token=TOKEN, subprotocol=transport == "v1"
    )
    closers.insert(0, sock.aclose)
    if transport == "v1":
        assert sock.subprotocol == V1_SUBPROTOCOL, "the server did not select the v1 protocol"
    return Arm(kernel, transport, ws_arm(sock))


def report(arms: list[Arm]) -> str:
    anchors = {
        a.transport: percentile([s.total for s in a.samples], 99)
        for a in arms
        if a.kernel == "ipykernel"
    }
    anchors["zmq echo"], anchors["ws relay"] = anchors["zmq"], anchors["v1"]
    rows = []
    for arm in arms:
        totals = [s.total for s in arm.samples]
        p50, p99 = percentile(totals, 50), percentile(totals, 99)
        hops = [
            f"{ms(percentile([s.hops[h] for s in arm.samples], 50))} / "
            f"{ms(percentile([s.hops[h] for s in arm.samples], 99))}"
            for h in range(3)
        ]
        rows.append(
            [arm.kernel, arm.transport, str(len(totals)), ms(p50), ms(p99), ms(max(totals)),
             ratio(p99, anchors[arm.transport]), *hops]
        )  # fmt: skip
    headers = ["kernel", "client", "n", "p50 ms", "p99 ms", "max ms", "p99 vs ipykernel",
               "in p50/p99", "kernel p50/p99", "out p50/p99"]  # fmt: skip
    return table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="50 samples")
    args = parser.parse_args(argv)
    samples = 50 if args.quick else args.samples
    gateway = start_gateway()
    try:
        arms = asyncio.run(measure(gateway, samples, warmup=min(50, samples)))
    finally:
        gateway.stop()
    print(f"B3b no-op prompt round trip through jupyter_server ({machine()})\n")
    print(report(arms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
