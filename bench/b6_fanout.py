"""B6: one agent's event stream fanned out through jupyter_server to many WebSocket clients.

A scripted agent streams ~1,000 events/s (thinking and text deltas paced by the script's `delay`,
plus message_complete, usage, tool_call and tool_result for an `ls` per step) while N clients read
the kernel WebSocket. Each case sets the pace first: one turn of a probe agent on the same server
gives the time per step on this machine now, and the measured agent's steps get the `delay` that
makes a step last its share of a second at the target rate (`--rate`, default 1,000 events/s;
`--delay` fixes the delay instead, 0 = as fast as the agent goes). Delivery latency = receive time -
the event's `ts` (same clock). Each client tracks `seq`: a gap triggers `sync{since, until}`; at the
end every client's events plus what it synced are checked against the agent's event log, so a loss
nobody noticed counts as silent. Clients speak the v1 subprotocol (as JupyterLab does); the kernel
coalesces bursts into `event_batch` messages ("events/frame"). Same run, for ≤ 10 clients: Shard
with clients on the JSON protocol, and an anchor — stock ipykernel publishing one comm_msg per event
at 1,000/s (no agent work, no batching) to the same number of v1 clients: the relay's own limit.
Each case gets a fresh server. The clients' process does not collect garbage while it measures.
Goals: 10 clients p99 ≤ 20 ms; 100 clients no silent loss.

    python bench/b6_fanout.py [--clients 10 100] [--seconds 8] [--rate 1000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, ms, percentile, table
from bench._gateway import TOKEN, Gateway, children, cpu_seconds, start_gateway
from shard_kernel.gateway.client import KernelSocket, comm_reply, shard_event

STEPS_PER_TURN = 150  # the turn loop's default max_steps is 200
EVENTS_PER_STEP = 14  # measured: 8 paced deltas + tool-call deltas + complete, usage, call, result
RATE = 1000.0
"""Events/s the measured agent is paced at (the goal's ~1,000)."""
PROBE_STEPS = STEPS_PER_TURN
"""Steps of the turn that measures the pace (see `calibrate`): a whole turn, as the measured
turns are (a step costs more as the turn grows)."""


@dataclass
class Client:
    sock: KernelSocket
    comm_id: str
    latencies: list[float] = field(default_factory=list[float])
    seen: set[int] = field(default_factory=set[int])
    synced: set[int] = field(default_factory=set[int])
    gaps: list[tuple[int, int]] = field(default_factory=list[tuple[int, int]])
    turn_ends: int = 0
    producing: float = 0.0
    """Seconds the agent spent emitting (turn_start to turn_end, by the events' own ts)."""
    turn_began: float = 0.0
    last: int = -1
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def on_event(self, event: dict[str, Any], now: float) -> None:
        seq = int(event["seq"])
        self.latencies.append(now - float(event["ts"]))
        if self.last >= 0 and seq > self.last + 1:
            self.resync(self.last, seq - 1)
        self.seen.add(seq)
        self.last = max(self.last, seq)
        if event["type"] == "turn_start":
            self.turn_began = float(event["ts"])
        elif event["type"] == "turn_end":
            self.turn_ends += 1
            self.producing += float(event["ts"]) - self.turn_began
        self.wake.set()

    def resync(self, since: int, until: int) -> None:
        """A gap (since, until]: ask the agent's log for it."""
        self.gaps.append((since, until))
        if not self.comm_id:  # the ipykernel anchor has no log to ask
            return
        command = {"type": "sync", "since": since, "until": until, "limit": 5000}
        self.sock.comm_send(self.comm_id, command)


async def read(client: Client) -> None:
    while True:
        message = await client.sock.recv()
        if message is None:
            return
        now = time.time()
        if (event := shard_event(message)) is not None:
            client.on_event(event, now)
        elif (reply := comm_reply(message, client.comm_id)) is not None:
            client.synced.update(int(e["seq"]) for e in reply.get("events", []))


async def until(client: Client, done: Any, within: float) -> bool:
    deadline = time.monotonic() + within
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        client.wake.clear()
        try:
            await asyncio.wait_for(client.wake.wait(), min(left, 0.5))
        except TimeoutError:
            continue
    return True


def script(
    gateway: Gateway, seconds: float, delay: float, name: str = "b6.json"
) -> tuple[str, int]:
    """Enough turns for `seconds` at ~1,000 events/s; the per-step delay sets the pace."""
    step = {
        "thinking": "one two three four five six seven eight",
        "text": "alpha beta gamma delta epsilon zeta eta theta",
        "tool_calls": [{"name": "ls", "input": {"path": "."}}],
        "delay": delay,
    }
    total = max(10, round(seconds * 1000 / EVENTS_PER_STEP))
    turns = math.ceil(total / STEPS_PER_TURN)
    steps = ([step] * math.ceil(total / turns) + [{"text": "turn done"}]) * turns
    return gateway.script(steps, name=name), turns


async def connect(
    gateway: Gateway, kernel_id: str, n: int, v1: bool = True, attach: bool = True
) -> list[Client]:
    clients = []
    for i in range(n):
        sock = await KernelSocket.open(gateway.url, kernel_id, token=TOKEN, subprotocol=v1)
        role = "interactive" if i == 0 else "observer"
        data = {"role": role, "client_id": f"c{i}", "since": 1 << 40}
        clients.append(Client(sock, sock.open_comm(data) if attach else ""))
    return clients


ANCHOR = """
import time
kernel = get_ipython().kernel
parent, topic = kernel.get_parent("shell"), kernel._topic("comm_msg")
t0 = time.perf_counter()
for seq in range({count}):
    ahead = t0 + seq / {rate} - time.perf_counter()
    if ahead > 0:
        time.sleep(ahead)
    data = {{"type": "message_delta", "seq": seq, "ts": time.time(), "delta": "alpha beta "}}
    kernel.session.send(kernel.iopub_socket, "comm_msg", {{"comm_id": "shard-events",
                        "data": data}}, parent=parent, ident=topic)
"""


async def run_anchor(gateway: Gateway, n: int, seconds: float) -> dict[str, Any]:
    """Stock ipykernel publishing one comm_msg per event at 1,000/s to `n` v1 clients: what
    jupyter_server's relay does with the same traffic when no agent runs (no batching)."""
    count = round(seconds * 1000)
    python = gateway.rest("POST", "/api/kernels", {"name": "python3"})
    clients = await connect(gateway, python["id"], n, attach=False)
    readers = [asyncio.ensure_future(read(c)) for c in clients]
    await asyncio.sleep(1.0)
    pids = {"server": gateway.proc.pid, "kernel": _kernel_pid(gateway, python["id"]),
            "clients": os.getpid()}  # fmt: skip
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    began = time.monotonic()
    frames = clients[0].sock.frames
    with _clients_gc_paused():
        clients[0].sock.execute(ANCHOR.format(count=count, rate=1000))
        for c in clients:
            await until(c, lambda c=c: c.last >= count - 1, 120)
    wall = time.monotonic() - began
    frames = clients[0].sock.frames - frames
    cpu = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    for r in readers:
        r.cancel()
    for c in clients:
        await c.sock.aclose()
    summary = _summary(clients, -1, count - 1, set(range(count)), count / 1000)
    summary["server_us"] = cpu["server"] / max(1, summary["events"] * n) * 1e6
    summary["per_frame"] = (summary["events"] + 1) / max(1, frames)
    summary["cpu"] = {name: used / wall for name, used in cpu.items()}
    summary["case"] = "ipykernel anchor, v1"
    return summary


async def calibrate(gateway: Gateway, rate: float) -> float:
    """The step `delay` that paces the agent at ~`rate` events/s on this machine now.

    One turn of an agent whose steps wait half their share of a second gives the time per
    step (its work, the wait, and the wait's overshoot: asyncio sleeps at millisecond
    granularity); the measured agent's delay adds or removes the difference."""
    probe = EVENTS_PER_STEP / rate / 2
    model, _ = script(gateway, PROBE_STEPS * EVENTS_PER_STEP / 1000, probe, "b6-pace.json")
    agent = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace(), "model": model})
    (client,) = await connect(gateway, agent["kernel_id"], 1)
    reader = asyncio.ensure_future(read(client))
    try:
        await _drive(client, 1)
    finally:
        reader.cancel()
        await client.sock.aclose()
        gateway.rest("DELETE", f"/shard/api/agents/{agent['id']}")
    per_step = EVENTS_PER_STEP * client.producing / max(1, len(client.seen))
    return max(0.0, probe + EVENTS_PER_STEP / rate - per_step)


async def run_case(
    gateway: Gateway, n: int, seconds: float, pace: tuple[float, float | None], v1: bool = True
) -> dict[str, Any]:
    """`pace`: the target events/s, and the step delay to use instead (None: calibrate)."""
    rate, delay = pace
    if delay is None:
        delay = await calibrate(gateway, rate)
    model, turns = script(gateway, seconds, delay)
    agent = gateway.rest("POST", "/shard/api/agents", {"cwd": gateway.workspace(), "model": model})
    clients = await connect(gateway, agent["kernel_id"], n, v1)
    readers = [asyncio.ensure_future(read(c)) for c in clients]
    await asyncio.sleep(1.0)
    start_seq = _last_seq(gateway, agent["id"])
    pids = {"server": gateway.proc.pid, "kernel": _kernel_pid(gateway, agent["kernel_id"]),
            "clients": os.getpid()}  # fmt: skip
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    began = time.monotonic()
    frames = clients[0].sock.frames
    with _clients_gc_paused():
        await _drive(clients[0], turns)
        last_seq = _last_seq(gateway, agent["id"])
        for c in clients:
            if not await until(c, lambda c=c: c.last >= last_seq, 60):
                c.resync(c.last, last_seq)  # the tail never came: the same protocol fills it
    wall = time.monotonic() - began
    frames = clients[0].sock.frames - frames
    cpu = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    await asyncio.sleep(2.0)  # let the sync replies land
    durable = _durable(gateway, agent["id"], start_seq)
    for r in readers:
        r.cancel()
    for c in clients:
        await c.sock.aclose()
    gateway.rest("DELETE", f"/shard/api/agents/{agent['id']}")
    summary = _summary(clients, start_seq, last_seq, durable, clients[0].producing)
    summary["server_us"] = cpu["server"] / max(1, summary["events"] * n) * 1e6
    summary["per_frame"] = summary["events"] / max(1, frames)
    summary["cpu"] = {name: used / wall for name, used in cpu.items()}
    summary["case"] = "shard, v1" if v1 else "shard, JSON protocol"
    summary["delay"] = delay
    return summary


@contextmanager
def _clients_gc_paused() -> Iterator[None]:
    """No garbage collection in the clients' process while they measure: its collections (up
    to 13 ms here) would be the bench clients' own latency, not the relay's."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _kernel_pid(gateway: Gateway, kernel_id: str) -> int:
    """The server's child process running this kernel (its connection file names the id)."""
    for pid in children(gateway.proc.pid):
        if kernel_id in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return pid
    raise RuntimeError(f"no process runs kernel {kernel_id}")


async def _drive(driver: Client, turns: int) -> None:
    """Prompt turn after turn (a comm `prompt`: events only, no notebook outputs)."""
    for _ in range(turns):
        ends = driver.turn_ends
        driver.sock.comm_send(driver.comm_id, {"type": "prompt", "text": "stream"})
        assert await until(driver, lambda e=ends: driver.turn_ends > e, 600), "turn timed out"


def _last_seq(gateway: Gateway, agent_id: str) -> int:
    path = f"/shard/api/agents/{agent_id}/events?since=0&limit=1"
    return int(gateway.rest("GET", path)["last_seq"])


def _durable(gateway: Gateway, agent_id: str, since: int) -> set[int]:
    seqs: set[int] = set()
    while True:
        page = gateway.rest("GET", f"/shard/api/agents/{agent_id}/events?since={since}&limit=5000")
        seqs.update(int(e["seq"]) for e in page["events"])
        if not page["has_more"]:
            return seqs
        since = page["next_since"]


def _summary(
    clients: list[Client], start: int, last: int, durable: set[int], elapsed: float
) -> dict[str, Any]:
    """Silent = missing and inside no detected gap; unrecovered = durable, missed, never synced."""
    silent = unrecovered = 0
    for c in clients:
        covered = {s for a, b in c.gaps for s in range(a + 1, b + 1)}
        missing = {s for s in range(start + 1, last + 1) if s not in c.seen}
        silent += len(missing - covered)
        unrecovered += len({s for s in missing & durable if s not in c.synced})
    latencies = [x for c in clients for x in c.latencies]
    return {
        "clients": len(clients),
        "events": last - start,
        "rate": (last - start) / elapsed if elapsed else 0.0,  # as the agent emitted them
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "max": max(latencies),
        "gaps": sum(len(c.gaps) for c in clients),
        "missed": sum(b - a for c in clients for a, b in c.gaps),
        "silent": silent,
        "unrecovered": unrecovered,
    }


def report(rows: list[dict[str, Any]]) -> str:
    headers = ["case", "clients", "events", "events/s", "delay ms/step", "p50 ms", "p99 ms",
               "max ms", "gaps", "missed", "silent", "unrecovered", "events/frame",
               "server µs/event/client", "CPU srv/kernel/clients"]  # fmt: skip
    body = [
        [r["case"], str(r["clients"]), str(r["events"]), f"{r['rate']:.0f}",
         f"{r['delay'] * 1000:.1f}" if "delay" in r else "—", ms(r["p50"]),
         ms(r["p99"]), ms(r["max"]), str(r["gaps"]), str(r["missed"]), str(r["silent"]),
         str(r["unrecovered"]), f"{r['per_frame']:.1f}", f"{r['server_us']:.0f}",
         "/".join(f"{r['cpu'][k]:.0%}" for k in ("server", "kernel", "clients"))]
        for r in rows
    ]  # fmt: skip
    return table(headers, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, nargs="+", default=[10, 100])
    parser.add_argument(
        "--seconds", type=float, nargs="+", default=[4.0, 0.5],
        help="seconds of events at ~1,000/s, one per client count (default: 4 for 10, 0.5 for 100)",
    )  # fmt: skip
    parser.add_argument("--rate", type=float, default=RATE, help="events/s to pace the agent at")
    parser.add_argument(
        "--delay", type=float, default=None,
        help="seconds of delay per step instead of pacing at --rate (0: unpaced)",
    )  # fmt: skip
    parser.add_argument(
        "--compare", action=argparse.BooleanOptionalAction, default=True,
        help="for ≤ 10 clients also run Shard over the JSON protocol and the ipykernel anchor",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="2 and 4 clients, 0.5 s")
    args = parser.parse_args(argv)
    counts, seconds = ([2, 4], [0.5]) if args.quick else (args.clients, args.seconds)
    rows = []
    for i, n in enumerate(counts):
        span = seconds[min(i, len(seconds) - 1)]
        pace = (args.rate, args.delay)
        cases = [lambda g, n=n, s=span, p=pace: run_case(g, n, s, p)]
        if args.compare and n <= 10:
            cases += [
                lambda g, n=n, s=span, p=pace: run_case(g, n, s, p, v1=False),
                lambda g, n=n, s=span: run_anchor(g, n, s),
            ]
        for case in cases:
            gateway = start_gateway()
            try:
                rows.append(asyncio.run(case(gateway)))
            finally:
                gateway.stop()
    print(f"B6 fan-out of one agent's events through jupyter_server ({machine()})\n")
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
