"""Time to a first answer: a new agent from the warm pool, a cold one, and a stock kernel.

Two `shard gateway`s in temp dirs, one with the pool (`PooledKernelManager.pool_size=1`) and one
without (0). Each round, interleaved: `POST /shard/api/agents` (a scripted model, one text
answer) → the kernel's WebSocket → a first prompt → its `execute_reply`, on the pooled server
(once its pool is ready again) and on the cold one; and the anchor, stock ipykernel through the
cold server: `POST /api/kernels` (python3) → WebSocket → `1` → `execute_reply`. Each agent and
kernel is deleted after its round. Then the RSS of the pool's spare kernel against an idle
stock kernel.

    python bench/pool_start.py [--rounds 7] [--quick]

Goal (issue 38): pooled ≤ 0.3x stock, cold ≤ 1.0x stock.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_kernel lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, ratio, summarize, table  # noqa: E402
from bench._gateway import TOKEN, Gateway, children, process_usage, start_gateway  # noqa: E402
from shard_kernel.gateway.client import KernelSocket  # noqa: E402

POOLED, COLD, STOCK = "pooled agent", "cold agent", "stock ipykernel"


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


async def agent_round(gateway: Gateway, model: str) -> float:
    started = time.perf_counter()
    agent = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace(), "model": model})
    await first_answer(gateway, agent["kernel_id"], "hello")
    elapsed = time.perf_counter() - started
    gateway.rest("DELETE", f"/shard/api/agents/{agent['id']}")
    return elapsed


async def stock_round(gateway: Gateway) -> float:
    started = time.perf_counter()
    kernel = gateway.rest("POST", "/api/kernels", {"name": "python3"})
    await first_answer(gateway, kernel["id"], "1")
    elapsed = time.perf_counter() - started
    gateway.rest("DELETE", f"/api/kernels/{kernel['id']}")
    return elapsed


async def pool_ready(gateway: Gateway) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        state = gateway.rest("GET", "/shard/api/pool")
        if state["ready"] >= 1 and state["starting"] == 0:
            return
        await asyncio.sleep(0.1)
    raise TimeoutError("the pool did not refill")


def kernel_rss(gateway: Gateway, marker: bytes) -> float:
    for pid in children(gateway.proc.pid):
        if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
            return process_usage(pid)[1]
    return float("nan")


async def run(rounds: int) -> dict[str, list[float]]:
    pooled = start_gateway("--set", "PooledKernelManager.pool_size=1")
    cold = start_gateway("--set", "PooledKernelManager.pool_size=0")
    samples: dict[str, list[float]] = {POOLED: [], COLD: [], STOCK: []}
    try:
        pooled_model, cold_model = (g.script([{"text": "hi"}]) for g in (pooled, cold))
        await pool_ready(pooled)
        await agent_round(pooled, pooled_model)  # untimed: page cache, first imports
        await agent_round(cold, cold_model)
        await stock_round(cold)
        for _ in range(rounds):
            await pool_ready(pooled)
            samples[POOLED].append(await agent_round(pooled, pooled_model))
            samples[COLD].append(await agent_round(cold, cold_model))
            samples[STOCK].append(await stock_round(cold))
        await pool_ready(pooled)
        kernel = cold.rest("POST", "/api/kernels", {"name": "python3"})
        await first_answer(cold, kernel["id"], "1")
        rss = {"spare pool kernel": kernel_rss(pooled, b"shard_kernel"),
               "idle stock kernel": kernel_rss(cold, b"ipykernel")}  # fmt: skip
        print("RSS: " + ", ".join(f"{k} {v:.1f} MiB" for k, v in rss.items()))
    finally:
        pooled.stop()
        cold.stop()
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two rounds")
    args = parser.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    print(machine())
    samples = asyncio.run(run(rounds))
    stock = summarize(samples[STOCK])
    rows: list[list[str]] = []
    for name, values in samples.items():
        s = summarize(values)
        rows.append([name, ms(s.median), ms(s.p90), ms(min(values)), ratio(s.median, stock.median)])
    print(table(["POST → first answer", "median ms", "p90 ms", "min ms", "x stock"], rows))


if __name__ == "__main__":
    main()
