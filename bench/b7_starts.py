"""B7: agent starts through the gateway — many at once, and many start/stop cycles.

1. `--concurrent` agents created at once (POST /shard/api/agents, each starts a kernel): all
   must come up running; time to the last one.
2. `--cycles` start/stop cycles spread over `--parallel` agents: POST …/attach, a WebSocket
   client attaches (comm on target `shard`, snapshot of what happened since its last visit
   read) and closes, DELETE …. The server's open file descriptors and RSS are sampled along
   the way, and once more when it has idled until its descriptors settle (at most 70 s); they
   must stay flat (a leak of one socket or buffer per kernel or per WebSocket shows as a
   slope).
3. The anchor (`--no-compare` skips it): the same cycles on a fresh jupyter_server without the
   Shard extension, stock ipykernel kernels through its own API (POST /api/kernels, a WebSocket
   client gets a kernel_info reply, DELETE), so the growth jupyter_server shows with no agent
   at all is printed beside Shard's, per 100 cycles after the warm-up.

   `--warmup N` runs N cycles first (both arms) and measures the `--cycles` after them: both
   servers' RSS climbs over their first few hundred cycles (the allocator filling up), and a
   leak is what still grows after that.

    python bench/b7_starts.py [--concurrent 20] [--cycles 200] [--warmup 0] [--parallel 4]
                              [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tornado.httpclient import HTTPClientError

from bench._common import machine, percentile, table
from bench._gateway import TOKEN, Gateway, process_usage, start_gateway, start_plain_server
from shard_kernel.gateway.client import KernelSocket, comm_reply

SETTLE = 70.0
"""Seconds the idle sample after the last cycle may wait for the descriptors to settle."""
Samples = list[tuple[int, int, float, float]]
"""(cycles done, server fds, server RSS MiB, seconds since the first cycle)."""


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


def cycles(gateway: Gateway, ids: list[str], total: int, parallel: int, warmup: int = 0) -> Samples:
    """Shard: attach (start the agent's kernel), a WebSocket client attaches (comm on target
    `shard`) and reads the snapshot, kill. The client comes back the way JupyterLab's panel
    does: `since` the last seq it saw of that agent (-1 the first time), so each cycle's replay
    is that agent's events since its last cycle, the same size every cycle. (Attaching with
    `since: -1` every time replays a log that grows a few events a cycle, up to the 500-event
    page: a larger message each cycle, whose peak the allocator keeps as it grows.)"""
    agents = ids[:parallel]
    seen = dict.fromkeys(agents, -1)

    def cycle(agent_id: str) -> None:
        attached = gateway.rest("POST", f"/shard/api/agents/{agent_id}/attach")
        seen[agent_id] = asyncio.run(_client(gateway, str(attached["kernel_id"]), seen[agent_id]))
        gateway.rest("DELETE", f"/shard/api/agents/{agent_id}")

    return _run_cycles(gateway, agents, total, cycle, warmup)


def anchor_cycles(gateway: Gateway, total: int, parallel: int, warmup: int = 0) -> Samples:
    """The anchor: the same cycles with stock ipykernel through jupyter_server's own kernel API
    (POST /api/kernels, a WebSocket client gets a kernel_info reply, DELETE) on a server without
    the Shard extension: what jupyter_server itself keeps per kernel started and stopped."""

    stalls: list[str] = []

    def cycle(_: str) -> None:
        kernel = gateway.rest("POST", "/api/kernels", {"name": "python3"})
        try:
            asyncio.run(_info_client(gateway, str(kernel["id"])))
        except (TimeoutError, HTTPClientError) as exc:
            stalls.append(f"{type(exc).__name__}: {exc}")  # counted below; the cycle goes on
        gateway.rest("DELETE", f"/api/kernels/{kernel['id']}")

    samples = _run_cycles(gateway, [str(i) for i in range(parallel)], total, cycle, warmup)
    if stalls:
        print(f"anchor: {len(stalls)} WebSocket connects stalled over 60 s ({stalls[0]})")
    return samples


def _run_cycles(
    gateway: Gateway,
    lanes: list[str],
    total: int,
    cycle: Callable[[str], None],
    warmup: int = 0,
) -> Samples:
    """`warmup` cycles, then `total` measured ones; samples at the start, at the end of the
    warm-up, eight times over the measured cycles, and once idle."""
    samples: Samples = []
    first = -(-warmup // len(lanes))  # rounds of warm-up (at least `warmup` cycles)
    rounds = max(1, total // len(lanes))
    step = max(1, rounds // 8)
    began = time.monotonic()
    with ThreadPoolExecutor(len(lanes)) as pool:
        for r in range(first + rounds + 1):
            if r == 0 or (r >= first and (r - first) % step == 0) or r == first + rounds:
                fds, rss = process_usage(gateway.proc.pid)
                samples.append((r * len(lanes), fds, rss, time.monotonic() - began))
            if r < first + rounds:
                list(pool.map(cycle, lanes))
    # Then idle until the descriptors are back where the warm-up left them, or SETTLE seconds:
    # a kernel's last connections close after its DELETE returns (and jupyter_server holds a
    # kernel_info wait up to 60 s); what is still open after that is a leak.
    done, want = samples[-1][0], samples[min(1, len(samples) - 1)][1]
    deadline = time.monotonic() + SETTLE
    while True:
        fds, rss = process_usage(gateway.proc.pid)
        if fds <= want or time.monotonic() >= deadline:
            samples.append((done, fds, rss, time.monotonic() - began))
            return samples
        time.sleep(0.5)


def report_cycles(runs: list[tuple[str, Samples]], warmup: int = 0) -> None:
    """One table per arm, then the growth over the measured cycles per 100 cycles, Shard
    against the anchor: from the end of `warmup` cycles (with none, from the first sample
    after 0: the first cycles start what a server starts once)."""
    growth: dict[str, tuple[int, float]] = {}
    for name, samples in runs:
        rows = [[str(n), str(fds), f"{rss:.1f}", f"{t:.0f}"] for n, fds, rss, t in samples]
        rows[-1][0] += " (idle)"
        if warmup:
            rows[0][0] += " (warm-up from here)"
        print(table([f"{name}: cycles done", "server fds", "server RSS MiB", "elapsed s"], rows))
        after = [x for x in samples[1:] if x[0] >= warmup] if warmup else samples[1:]
        first, last = (after[0] if len(after) > 1 else samples[0]), samples[-1]
        if warmup:
            print(f"warm-up, {first[0]} cycles: RSS {samples[0][2]:.1f} → {first[2]:.1f} MiB")
        per = 100 / max(1, last[0] - first[0])
        growth[name] = (last[1] - first[1], (last[2] - first[2]) * per)
        mid = next(x for x in samples if x[0] >= (first[0] + last[0]) / 2)
        late = (last[2] - mid[2]) * 100 / max(1, last[0] - mid[0])
        print(
            f"measured, {first[0]} → {last[0]} cycles: "
            f"fds {first[1]} → {last[1]} ({last[1] - first[1]:+d}), "
            f"RSS {first[2]:.1f} → {last[2]:.1f} MiB ({last[2] - first[2]:+.1f}; "
            f"{growth[name][1]:+.2f} MiB per 100 cycles; second half, from cycle {mid[0]}: "
            f"{late:+.2f})\n"
        )
    if len(growth) == 2:
        (shard_fds, shard_rss), (anchor_fds, anchor_rss) = growth.values()
        print(
            f"Shard vs anchor after warm-up: fds {shard_fds:+d} vs {anchor_fds:+d}; "
            f"RSS {shard_rss:+.2f} vs {anchor_rss:+.2f} MiB per 100 cycles"
        )


async def _client(gateway: Gateway, kernel_id: str, since: int) -> int:
    """Attach as an observer, read the snapshot; the last seq it reports."""
    sock = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN)
    comm_id = sock.open_comm({"role": "observer", "client_id": "b7", "since": since})
    last = since
    while (message := await sock.recv(60)) is not None:
        reply = comm_reply(message, comm_id)
        if reply is not None and reply.get("type") == "snapshot":
            last = int(reply["last_seq"])
            break
    await sock.aclose()
    return last


async def _info_client(gateway: Gateway, kernel_id: str) -> None:
    sock = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN, within=60)
    msg_id = sock.send("shell", "kernel_info_request", {})
    while (message := await sock.recv(60)) is not None:
        mine = message.get("parent_header", {}).get("msg_id") == msg_id
        if mine and message["header"]["msg_type"] == "kernel_info_reply":
            break
    await sock.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument(
        "--warmup", type=int, default=0,
        help="start/stop cycles run before the measured --cycles (both arms)",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="3 concurrent, 6 cycles")
    parser.add_argument(
        "--compare", action=argparse.BooleanOptionalAction, default=True,
        help="also run the cycles on plain jupyter_server with stock ipykernel (the anchor)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    concurrent, total = (3, 6) if args.quick else (args.concurrent, args.cycles)
    warmup = 0 if args.quick else args.warmup
    print(f"B7 agent starts through jupyter_server ({machine()})\n")
    runs: list[tuple[str, Samples]] = []
    gateway = start_gateway()
    try:
        ids = concurrent_starts(gateway, concurrent)
        print()
        lanes = min(args.parallel, len(ids))
        runs.append(("shard", cycles(gateway, ids, total, lanes, warmup)))
    finally:
        gateway.stop()
    if args.compare:
        gateway = start_plain_server()  # a fresh server, as the Shard arm had
        try:
            runs.append(("stock ipykernel", anchor_cycles(gateway, total, args.parallel, warmup)))
        finally:
            gateway.stop()
    report_cycles(runs, warmup)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
