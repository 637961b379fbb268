"""B3a: a no-op round trip over ZMQ, shard against stock ipykernel, same run.

One kernel of each, started as in B2 (jupyter_client, tcp on 127.0.0.1), one client each. A
sample is request sent → reply received on shell, for an empty cell (execute_request of "": both
kernels answer without running anything) and for kernel_info. On the shard kernel only, for
reference: a `heartbeat` command on an attached `shard` comm → its `reply` (which comes back on
IOPub). After each sample the bench also waits, untimed, for the kernel's `idle`, so every sample
starts on a quiet kernel. The kernels alternate, sample by sample, after a warm-up.

    python bench/b3a_zmq_roundtrip.py [--samples 500] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_kernel lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import machine, ms, percentile, ratio, table  # noqa: E402
from bench.b2_kernel_start import (  # noqa: E402
    SHARD,
    STOCK,
    Inbox,
    Kernel,
    Match,
    bench_context,
    boot,
    comm_data,
    isolated,
    open_shard_comm,
    reply_to,
    start,
    stop,
)

Request = Callable[[BlockingKernelClient], tuple[str, Match]]  # send → (msg_id, the reply)


def empty_cell(kc: BlockingKernelClient) -> tuple[str, Match]:
    msg_id = kc.execute("", store_history=False)
    return msg_id, reply_to(msg_id, "execute_reply")


def kernel_info(kc: BlockingKernelClient) -> tuple[str, Match]:
    msg_id = kc.kernel_info()
    return msg_id, reply_to(msg_id, "kernel_info_reply")


def heartbeat(comm_id: str) -> Request:
    def send(kc: BlockingKernelClient) -> tuple[str, Match]:
        command_id = uuid.uuid4().hex[:8]
        data = {"type": "heartbeat", "client_id": "bench", "id": command_id}
        msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        kc.shell_channel.send(msg)
        is_reply = comm_data(comm_id, "reply")

        def match(m: dict[str, Any]) -> bool:
            return is_reply(m) and m["content"]["data"].get("command_id") == command_id

        return msg["header"]["msg_id"], match

    return send


def idle_after(msg_id: str) -> Match:
    def match(msg: dict[str, Any]) -> bool:
        parent = msg["parent_header"].get("msg_id")
        return msg["msg_type"] == "status" and parent == msg_id and _idle(msg)

    return match


def _idle(msg: dict[str, Any]) -> bool:
    return msg["content"].get("execution_state") == "idle"


def round_trip(inbox: Inbox, kc: BlockingKernelClient, request: Request) -> float:
    started = time.perf_counter()
    msg_id, is_reply = request(kc)
    inbox.expect("reply", is_reply)
    inbox.expect("idle", idle_after(msg_id))
    return inbox.wait("reply", "idle", timeout=30)["reply"] - started


Case = tuple[str, str, Request, Inbox, BlockingKernelClient]  # (what, kernel, request, ...)


def _cases(kernels: dict[str, Kernel]) -> list[Case]:
    inboxes = {name: Inbox(k.kc) for name, k in kernels.items()}
    cases: list[Case] = []
    for what, request in [("empty cell", empty_cell), ("kernel_info", kernel_info)]:
        for name, k in kernels.items():
            cases.append((what, name, request, inboxes[name], k.kc))
    shard = kernels[SHARD].kc
    comm_id = open_shard_comm(shard, "bench", role="interactive")
    inboxes[SHARD].expect("snapshot", comm_data(comm_id, "snapshot"))
    inboxes[SHARD].wait("snapshot", timeout=60)
    cases.append(("comm heartbeat", SHARD, heartbeat(comm_id), inboxes[SHARD], shard))
    return cases


def measure(samples: int, root: Path, warmup: int = 50) -> dict[tuple[str, str], list[float]]:
    ctx = bench_context()
    kernels: dict[str, Kernel] = {}
    try:
        with isolated(root) as env:
            for name in (SHARD, STOCK):
                kernels[name] = start(name, env, ctx, root / f"{name}.log")
                boot(kernels[name])  # the shard agent is up; both kernels have run a cell
            cases = _cases(kernels)
            times: dict[tuple[str, str], list[float]] = {(c[0], c[1]): [] for c in cases}
            for i in range(warmup + samples):
                for what, name, request, inbox, kc in cases if i % 2 == 0 else cases[::-1]:
                    seconds = round_trip(inbox, kc, request)
                    if i >= warmup:
                        times[(what, name)].append(seconds)
    finally:
        for kernel in kernels.values():
            stop(kernel)
        ctx.destroy(linger=0)
    return times


def report(times: dict[tuple[str, str], list[float]], samples: int) -> str:
    rows: list[list[str]] = []
    for (what, name), values in times.items():
        p50, p99 = percentile(values, 50), percentile(values, 99)
        vs = ["", ""]  # the comm heartbeat has no stock counterpart
        if anchor := times.get((what, STOCK)):
            vs = [ratio(p50, percentile(anchor, 50)), ratio(p99, percentile(anchor, 99))]
        rows.append([what, name, ms(p50), ms(p99), ms(max(values)), *vs])
    headers = ["round trip", "kernel", "p50 ms", "p99 ms", "max ms", f"p50 vs {STOCK}",
               f"p99 vs {STOCK}"]  # fmt: skip
    return "\n\n".join(
        [
            f"B3a ZMQ round trip, {time.strftime('%Y-%m-%d')}, {machine()}",
            f"{samples} samples per row after warm-up, kernels alternating, tcp on 127.0.0.1;"
            " request sent -> reply received. The comm heartbeat's reply comes on IOPub.",
            table(headers, rows),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, help="samples per row (default 500)")
    parser.add_argument("--quick", action="store_true", help="10 samples, for a smoke run")
    parser.add_argument("--dir", type=Path, help="where the temp dirs go (default: system temp)")
    args = parser.parse_args(argv)
    samples = args.samples or (10 if args.quick else 500)
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="shard-b3a-") as tmp:
        times = measure(samples, Path(tmp), warmup=2 if args.quick else 50)
    print(report(times, samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
