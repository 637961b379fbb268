"""B7: agent starts through the gateway — many at once, and many start/stop cycles.

1. `--concurrent` agents created at once (POST /shard/api/agents, each starts a kernel): all
   must come up running; time to the last one.
2. `--cycles` start/stop cycles spread over `--parallel` agents: POST …/attach, a WebSocket
   client attaches (comm on target `shard`, snapshot read) and closes, DELETE …. The server's
   open file descriptors and RSS are sampled along the way and must stay flat (a leak of one
   socket or buffer per kernel or per WebSocket shows as a slope).

    python bench/b7_starts.py [--concurrent 20] [--cycles 200] [--parallel 4] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, percentile, table
from bench._gateway import TOKEN, Gateway, process_usage, start_gateway
from shard_kernel.gateway.client import KernelSocket, comm_reply


def concurrent_starts(gateway: Gateway, count: int) -> list[str]:
    cwd = gateway.workspace()
    began = time.monotonic()

    def create(i: int) -> tuple[dict[str, object], float]:
        agent = gateway.rest("POST", "/shard/api/agents", {"cwd": cwd, "name": f"a{i}"})
        return agent, time.monotonic() - began

    with ThreadPoolExecutor(count) as pool:
        results = list(pool.map(create, range(count)))
    states = [str(a["runtime_state"]) for a, _ in results]
    seconds = [t for _, t in results]
    listed = gateway.rest("GET", "/shard/api/agents")["agents"]
    running = sum(a["runtime_state"] == "running" for a in listed)
    rows = [
        ["agents started", str(count)],
        ["running after", f"{running} (create replies: {states.count('running')} running)"],
        ["first / median / last up (s)", f"{min(seconds):.2f} / {percentile(seconds, 50):.2f} / "
         f"{max(seconds):.2f}"],
    ]  # fmt: skip
    print(table(["B7a concurrent starts", "value"], rows))
    ids = [str(a["id"]) for a, _ in results]
    with ThreadPoolExecutor(count) as pool:
        list(pool.map(lambda i: gateway.rest("DELETE", f"/shard/api/agents/{i}"), ids))
    return ids


def cycles(gateway: Gateway, ids: list[str], total: int, parallel: int) -> None:
    agents = ids[:parallel]
    samples: list[tuple[int, int, float, float]] = []
    rounds = max(1, total // len(agents))
    began = time.monotonic()

    def cycle(agent_id: str) -> None:
        attached = gateway.rest("POST", f"/shard/api/agents/{agent_id}/attach")
        asyncio.run(_client(gateway, str(attached["kernel_id"])))
        gateway.rest("DELETE", f"/shard/api/agents/{agent_id}")

    with ThreadPoolExecutor(len(agents)) as pool:
        for r in range(rounds + 1):
            if r % max(1, rounds // 8) == 0 or r == rounds:
                fds, rss = process_usage(gateway.proc.pid)
                samples.append((r * len(agents), fds, rss, time.monotonic() - began))
            if r < rounds:
                list(pool.map(cycle, agents))
    rows = [[str(n), str(fds), f"{rss:.1f}", f"{t:.0f}"] for n, fds, rss, t in samples]
    print(table(["cycles done", "server fds", "server RSS MiB", "elapsed s"], rows))
    first, last = samples[1] if len(samples) > 2 else samples[0], samples[-1]
    print(
        f"\nafter warm-up → end: fds {first[1]} → {last[1]} ({last[1] - first[1]:+d}), "
        f"RSS {first[2]:.1f} → {last[2]:.1f} MiB ({last[2] - first[2]:+.1f})"
    )


async def _client(gateway: Gateway, kernel_id: str) -> None:
    sock = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN)
    comm_id = sock.open_comm({"role": "observer", "client_id": "b7", "since": -1})
    while (message := await sock.recv(60)) is not None:
        reply = comm_reply(message, comm_id)
        if reply is not None and reply.get("type") == "snapshot":
            break
    await sock.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="3 concurrent, 6 cycles")
    args = parser.parse_args(argv)
    concurrent, total = (3, 6) if args.quick else (args.concurrent, args.cycles)
    gateway = start_gateway()
    try:
        print(f"B7 agent starts through jupyter_server ({machine()})\n")
        ids = concurrent_starts(gateway, concurrent)
        print()
        cycles(gateway, ids, total, min(args.parallel, len(ids)))
    finally:
        gateway.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
