"""B3b: a no-op prompt's round trip through jupyter_server's kernel WebSocket, shard vs ipykernel.

One `shard gateway` serves both kernels: a Shard agent (an empty cell: the kernel answers
without running a turn) and stock ipykernel (`python3`, an empty cell). Each kernel gets three
clients, measured in the same run:

- `v1`: a WebSocket speaking the `v1.kernel.websocket.jupyter.org` subprotocol (what JupyterLab
  uses: the server forwards the kernel's frames without parsing them),
- `json`: a WebSocket on the plain JSON protocol (the server parses and re-encodes every message),
- `zmq`: jupyter_client straight to the kernel's ZMQ ports (its connection file, in the server's
  runtime dir) — no server at all: the floor the relay adds to.

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
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jupyter_client.asynchronous.client import AsyncKernelClient

from bench._common import machine, ms, percentile, ratio, table
from bench._gateway import TOKEN, Gateway, start_gateway
from shard_kernel.gateway.client import V1_SUBPROTOCOL, KernelSocket, msg_type

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
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    while True:  # drain what the ready handshake left behind
        try:
            await kc.get_iopub_msg(timeout=0.2)
        except Exception:
            return kc


async def measure(gateway: Gateway, samples: int, warmup: int) -> list[Arm]:
    agent = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace()})
    python = gateway.rest("POST", "/api/kernels", {"name": "python3"})
    arms: list[Arm] = []
    closers: list[Callable[[], Any]] = []
    for kernel, kernel_id in (("shard", agent["kernel_id"]), ("ipykernel", python["id"])):
        v1 = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN)
        assert v1.subprotocol == V1_SUBPROTOCOL, "the server did not select the v1 subprotocol"
        plain = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN, subprotocol=False)
        kc = await zmq_client(gateway, kernel_id)
        arms += [
            Arm(kernel, "v1", ws_arm(v1)),
            Arm(kernel, "json", ws_arm(plain)),
            Arm(kernel, "zmq", zmq_arm(kc)),
        ]
        closers += [v1.close, plain.close, kc.stop_channels]
    for i in range(warmup + samples):
        shift = i % len(arms)
        for arm in arms[shift:] + arms[:shift]:
            sample = await arm.run()
            if i >= warmup:
                arm.samples.append(sample)
    for close in closers:
        close()
    return arms


def report(arms: list[Arm]) -> str:
    anchors = {
        a.transport: percentile([s.total for s in a.samples], 99)
        for a in arms
        if a.kernel == "ipykernel"
    }
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
