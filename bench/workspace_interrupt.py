"""Workspace kernel interrupt: a `time.sleep(60)` in python_exec, stopped by the turn's abort.

Times, from the moment the call is cancelled (what an abort does to the running tool), until
the cancelled call has returned — by then the kernel reported the cell ended (KeyboardInterrupt)
— and until the next python_exec answers. The anchor is jupyter_client by hand on a stock kernel,
same run: `interrupt_kernel()`, then wait for the `execute_reply`. Goal (issue 25): ≤ 1 s.

    python bench/workspace_interrupt.py [--runs 10] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_kernel lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, ratio, summarize, table  # noqa: E402
from shard_kernel.notebook_tools import WorkspaceKernel  # noqa: E402

SLEEP = "import time\ntime.sleep(60)"
SETTLE = 0.3  # seconds the sleep runs before the interrupt


async def shard_sample(kernel: WorkspaceKernel) -> tuple[float, float]:
    call = asyncio.ensure_future(kernel.execute(SLEEP, limit=120))
    await asyncio.sleep(SETTLE)
    start = time.perf_counter()
    call.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await call
    stopped = time.perf_counter() - start
    await kernel.execute("1", limit=30)
    return stopped, time.perf_counter() - start


async def anchor_sample(km: AsyncKernelManager) -> tuple[float, float]:
    client = km.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        msg_id = client.execute(SLEEP)
        await asyncio.sleep(SETTLE)
        start = time.perf_counter()
        await km.interrupt_kernel()
        while (await client.get_shell_msg(timeout=30))["parent_header"].get("msg_id") != msg_id:
            pass
        stopped = time.perf_counter() - start
        await client.execute_interactive("1", timeout=30, output_hook=lambda _msg: None)
        return stopped, time.perf_counter() - start
    finally:
        client.stop_channels()


async def main(runs: int) -> None:
    cwd = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    kernel = WorkspaceKernel(cwd)
    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel(cwd=str(cwd))
    shard: list[tuple[float, float]] = []
    anchor: list[tuple[float, float]] = []
    try:
        await kernel.execute("1", limit=60)  # started and warm
        for _ in range(runs):
            shard.append(await shard_sample(kernel))
            anchor.append(await anchor_sample(km))
    finally:
        await kernel.shutdown()
        await km.shutdown_kernel(now=True)
    rows = []
    for label, index in (("cell ended", 0), ("next call answered", 1)):
        mine = summarize([s[index] for s in shard])
        base = summarize([s[index] for s in anchor])
        rows.append(
            [
                label,
                ms(mine.median),
                ms(mine.p90),
                ms(base.median),
                ms(base.p90),
                ratio(mine.median, base.median),
            ]
        )
    print(machine())
    print(f"time.sleep(60) interrupted, {runs} runs each, ms (goal: cell ended ≤ 1000 ms)\n")
    print(
        table(
            ["after the abort", "shard p50", "shard p90", "anchor p50", "anchor p90", "p50 ratio"],
            rows,
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="3 runs")
    args = parser.parse_args()
    asyncio.run(main(3 if args.quick else args.runs))
