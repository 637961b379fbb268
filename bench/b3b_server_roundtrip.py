"""B3b: a no-op prompt's round trip through jupyter_server's kernel WebSocket, shard vs ipykernel.

One `shard gateway` serves both kernels: a Shard agent (an empty cell: the kernel answers
without running a turn) and stock ipykernel (`python3`, an empty cell). One WebSocket client
each, plain JSON protocol; a sample is execute_request sent → execute_reply received. The two
kernels take turns, so machine noise hits both. Goal: shard p99 ≤ 5 ms over loopback.

    python bench/b3b_server_roundtrip.py [--samples 1000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, ms, percentile, ratio, table
from bench._gateway import TOKEN, Gateway, start_gateway
from shard_kernel.gateway.client import KernelSocket, msg_type


async def round_trip(sock: KernelSocket, code: str) -> float:
    start = time.perf_counter()
    msg_id = sock.execute(code)
    while True:
        message = await sock.recv(30)
        if message is None:
            raise RuntimeError("the WebSocket closed")
        if msg_type(message) == "execute_reply" and message["parent_header"]["msg_id"] == msg_id:
            return time.perf_counter() - start


async def measure(gateway: Gateway, samples: int, warmup: int) -> dict[str, list[float]]:
    agent = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace()})
    python = gateway.rest("POST", "/api/kernels", {"name": "python3"})
    socks = {
        "shard": await KernelSocket.open(gateway.url, agent["kernel_id"], token=TOKEN),
        "ipykernel": await KernelSocket.open(gateway.url, python["id"], token=TOKEN),
    }
    times: dict[str, list[float]] = {name: [] for name in socks}
    for i in range(warmup + samples):
        order = list(socks) if i % 2 == 0 else list(reversed(socks))
        for name in order:
            seconds = await round_trip(socks[name], "")
            if i >= warmup:
                times[name].append(seconds)
    for sock in socks.values():
        sock.close()
    return times


def report(times: dict[str, list[float]]) -> str:
    anchor = percentile(times["ipykernel"], 50)
    rows = []
    for name, samples in times.items():
        p50, p99 = percentile(samples, 50), percentile(samples, 99)
        rows.append(
            [name, str(len(samples)), ms(p50), ms(p99), ms(max(samples)), ratio(p50, anchor)]
        )
    return table(["kernel", "n", "p50 ms", "p99 ms", "max ms", "p50 vs ipykernel"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="50 samples")
    args = parser.parse_args(argv)
    samples = 50 if args.quick else args.samples
    gateway = start_gateway()
    try:
        times = asyncio.run(measure(gateway, samples, warmup=min(50, samples)))
    finally:
        gateway.stop()
    print(f"B3b no-op prompt round trip through jupyter_server ({machine()})\n")
    print(report(times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
