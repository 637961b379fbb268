"""Time to a first answer: a new agent from the warm pool, a cold one forked from the server's
template, a cold one spawned, and a stock kernel.

Three `shard gateway`s in temp dirs: one with the pool (`PooledKernelManager.pool_size=1`, its
kernels forked), one without a pool forking its kernels (the default), and one without a pool
spawning them (`WarmableKernelManager.fork_kernels=False`, as before the template). Each round,
interleaved: `POST /shard/api/agents` (a scripted model, one text answer) → the kernel's
WebSocket → a first prompt → its `execute_reply`, on each server (the pooled one once its pool
is ready again); and the anchor, stock ipykernel through the spawning server: `POST
/api/kernels` (python3) → WebSocket → `1` → `execute_reply`. Each agent and kernel is deleted
after its round. `--burst N` then times N concurrent creates → first answers (until the last is
answered), on the forking and the spawning server and N stock kernels, interleaved. Then the RSS
of the pool's spare kernel against an idle stock kernel. `uptime`'s load is printed beside.

    python bench/pool_start.py [--rounds 7] [--quick] [--burst 5 --burst-rounds 3]

Goal (issue 38): pooled ≤ 0.3x stock, cold ≤ 1.0x stock.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_kernel lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import compile_sources, machine, ms, ratio, summarize, table  # noqa: E402
from bench._gateway import TOKEN, Gateway, children, process_usage, start_gateway  # noqa: E402
from shard_kernel.gateway.client import KernelSocket  # noqa: E402

POOLED, FORKED, SPAWNED, STOCK = (
    "pooled agent", "cold agent, forked", "cold agent, spawned", "stock ipykernel"
)  # fmt: skip
SPAWN = ("--set", "WarmableKernelManager.fork_kernels=False")
FORK = ("--set", "WarmableKernelManager.fork_kernels=True")  # off by default


def load() -> str:
    return "load " + " / ".join(Path("/proc/loadavg").read_text().split()[:3])


async def first_answer(gateway: Gateway, kernel_id: str, code: str) -> None:
    sock = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN)
    try:
        msg_id = sock.execute(code)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            message = await sock.recv(deadline - time.monotonic())
            if message is None:
                raise RuntimeError("the kernel's socket closed")
            header = message.get("header", {})
            parent = message.get("parent_header", {})
            if header.get("msg_type") == "execute_reply" and parent.get("msg_id") == msg_id:
                if message["content"]["status"] != "ok":
                    raise RuntimeError(f"the first cell failed: {message['content']}")
                return
        raise TimeoutError("no execute_reply")
    finally:
        await sock.aclose()


async def rest(gateway: Gateway, method: str, path: str, body: object = None) -> Any:
    return await asyncio.to_thread(gateway.rest, method, path, body)  # a burst's are concurrent


async def agent_round(gateway: Gateway, model: str) -> float:
    started = time.perf_counter()
    body = {"cwd": gateway.workspace(), "model": model}
    agent = await rest(gateway, "POST", "/shard/api/agents", body)
    await first_answer(gateway, agent["kernel_id"], "hello")
    elapsed = time.perf_counter() - started
    await rest(gateway, "DELETE", f"/shard/api/agents/{agent['id']}")
    return elapsed


async def stock_round(gateway: Gateway) -> float:
    started = time.perf_counter()
    kernel = await rest(gateway, "POST", "/api/kernels", {"name": "python3"})
    await first_answer(gateway, kernel["id"], "1")
    elapsed = time.perf_counter() - started
    await rest(gateway, "DELETE", f"/api/kernels/{kernel['id']}")
    return elapsed


async def burst(n: int, one: Callable[[], Awaitable[float]]) -> float:
    """Seconds until the last of `n` concurrent starts has answered."""
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return time.perf_counter() - started


async def pool_ready(gateway: Gateway) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        state = gateway.rest("GET", "/shard/api/pool")
        if state["ready"] >= 1 and state["starting"] == 0:
            return
        await asyncio.sleep(0.1)
    raise TimeoutError("the pool did not refill")


def descendants(pid: int) -> list[int]:
    found, stack = [], [pid]
    while stack:
        for child in children(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def pss(pid: int) -> float:
    """Proportional set size (MiB): a forked kernel's pages shared with its template count
    by share, where RSS counts them whole."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def kernel_memory(gateway: Gateway, marker: bytes) -> str:
    for pid in descendants(gateway.proc.pid):
        if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
            return f"RSS {process_usage(pid)[1]:.1f} MiB, PSS {pss(pid):.1f} MiB"
    return "not found"


async def run(rounds: int, n: int, burst_rounds: int) -> dict[str, list[float]]:
    pooled = start_gateway("--set", "PooledKernelManager.pool_size=1", *FORK)
    forked = start_gateway("--set", "PooledKernelManager.pool_size=0", *FORK)
    spawned = start_gateway("--set", "PooledKernelManager.pool_size=0", *SPAWN)
    samples: dict[str, list[float]] = {POOLED: [], FORKED: [], SPAWNED: [], STOCK: []}
    bursts: dict[str, list[float]] = {FORKED: [], SPAWNED: [], STOCK: []}
    loads: list[str] = [load()]
    try:
        models = {g.port: g.script([{"text": "hi"}]) for g in (pooled, forked, spawned)}
        await pool_ready(pooled)
        for gateway in (pooled, forked, spawned):  # untimed: page cache, first imports
            await agent_round(gateway, models[gateway.port])
        await stock_round(spawned)
        for _ in range(rounds):
            await pool_ready(pooled)
            samples[POOLED].append(await agent_round(pooled, models[pooled.port]))
            samples[FORKED].append(await agent_round(forked, models[forked.port]))
            samples[SPAWNED].append(await agent_round(spawned, models[spawned.port]))
            samples[STOCK].append(await stock_round(spawned))
        loads.append(load())
        for _ in range(burst_rounds if n else 0):
            for name, gateway in ((FORKED, forked), (SPAWNED, spawned)):
                model = models[gateway.port]
                bursts[name].append(await burst(n, lambda g=gateway, m=model: agent_round(g, m)))
            bursts[STOCK].append(await burst(n, lambda: stock_round(spawned)))
        if n and burst_rounds:
            loads.append(load())
        await pool_ready(pooled)
        kernel = spawned.rest("POST", "/api/kernels", {"name": "python3"})
        await first_answer(spawned, kernel["id"], "1")
        memory = {"spare pool kernel (forked)": kernel_memory(pooled, b"shard_kernel\0-f"),
                  "fork template": kernel_memory(pooled, b"shard_kernel.forkserver"),
                  "idle stock kernel": kernel_memory(spawned, b"ipykernel")}  # fmt: skip
        print("; ".join(f"{k}: {v}" for k, v in memory.items()))
    finally:
        for gateway in (pooled, forked, spawned):
            gateway.stop()
    print("; ".join(loads))
    if any(bursts.values()):
        stock = summarize(bursts[STOCK])
        rows = []
        for name, values in bursts.items():
            median = summarize(values).median
            rows.append([name, ms(median), ms(max(values)), ratio(median, stock.median)])
        print(table([f"burst of {n}: POST → last answer", "median ms", "max ms", "x stock"], rows))
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two rounds, one burst")
    parser.add_argument("--burst", type=int, default=5, help="concurrent creates (0: none)")
    parser.add_argument("--burst-rounds", type=int, default=3)
    args = parser.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    burst_rounds = 1 if args.quick else args.burst_rounds
    print(machine())
    print(compile_sources(ROOT))
    samples = asyncio.run(run(rounds, args.burst, burst_rounds))
    stock = summarize(samples[STOCK])
    rows: list[list[str]] = []
    for name, values in samples.items():
        s = summarize(values)
        rows.append([name, ms(s.median), ms(s.p90), ms(min(values)), ratio(s.median, stock.median)])
    print(table(["POST → first answer", "median ms", "p90 ms", "min ms", "x stock"], rows))


if __name__ == "__main__":
    main()
