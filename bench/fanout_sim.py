"""Fan-out simulation: N agents x M clients on one `shard gateway`, where does it saturate?

Each cell of the grid starts N scripted agents that stream at `--rate` events/s each (thinking and
text deltas, a tool call and its result per step, paced by the script's `delay`), attaches M
v1-protocol clients to every agent (one interactive, the rest observers, as JupyterLab tabs
would), and has every agent run one turn at once. Measured per cell: the events the agents
produced per second (offered) and the events all clients received per second (delivered =
offered x M when nothing lags), delivery latency (receive time - the event's `ts`, same clock)
p50/p99, seq gaps the clients saw, and CPU of the server, of the kernels together and of the
clients' own process (one asyncio process for all clients: on 2 cores it competes with the
server, so read its column before blaming the server). A cell is **saturated** when p99 exceeds
`--p99-limit` ms (default 250), a client saw a gap, or delivery fell below 90 % of what was
offered x M. The anchor is the 1 x 1 cell of the same run: "server µs/event" is normalised to it.

Then the orchestrator events: S subscribers on `/shard/api/events`, K agents created and killed;
the time from each create's answer to `agent_spawned` at every subscriber (p50/p99), and the
events each subscriber received.

    python bench/fanout_sim.py [--agents 1 2 4 8] [--clients 1 5 20] [--rate 250]
                               [--steps 60] [--subscribers 10 100] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, ms, percentile, table
from bench._gateway import TOKEN, Gateway, children, cpu_seconds, start_gateway
from bench.b6_fanout import EVENTS_PER_STEP, Client, _clients_gc_paused, connect, read, until
from shard_core.protocol.orchestrator import AgentSpawnedEvent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayLink

P99_LIMIT_MS = 250.0


def agent_script(gateway: Gateway, steps: int, rate: float, name: str) -> str:
    """One turn of `steps` tool-calling steps, each waiting its share of a second at `rate`
    (the step's own work comes on top: the measured rate is reported, not assumed)."""
    step = {
        "thinking": "one two three four five six seven eight",
        "text": "alpha beta gamma delta epsilon zeta eta theta",
        "tool_calls": [{"name": "ls", "input": {"path": "."}}],
        "delay": EVENTS_PER_STEP / rate,
    }
    return gateway.script([step] * steps + [{"text": "turn done"}], name=name)


async def run_cell(
    gateway: Gateway, agents: int, clients: int, rate: float, steps: int, limit: float
) -> dict:
    ws = gateway.workspace()
    made = [
        gateway.rest(
            "POST",
            "/shard/api/agents",
            {"cwd": ws, "model": agent_script(gateway, steps, rate, f"sim-{agents}-{i}.json")},
        )
        for i in range(agents)
    ]
    groups = [await connect(gateway, a["kernel_id"], clients) for a in made]
    everyone = [c for group in groups for c in group]
    readers = [asyncio.ensure_future(read(c)) for c in everyone]
    await asyncio.sleep(1.0)  # attach snapshots in, subscriptions settled
    kernels = [_kernel_pid(gateway, a["kernel_id"]) for a in made]
    pids = {"server": [gateway.proc.pid], "kernels": kernels, "clients": [os.getpid()]}
    before = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
    began = time.monotonic()
    with _clients_gc_paused():
        for group in groups:
            driver = group[0]
            driver.sock.comm_send(driver.comm_id, {"type": "prompt", "text": "stream"})
        for group in groups:
            for c in group:
                await until(c, lambda c=c: c.turn_ends >= 1, 600)
    wall = time.monotonic() - began
    cpu = {k: sum(cpu_seconds(p) for p in v) - before[k] for k, v in pids.items()}
    for r in readers:
        r.cancel()
    for c in everyone:
        await c.sock.aclose()
    for a in made:
        gateway.rest("DELETE", f"/shard/api/agents/{a['id']}")
    return _cell(agents, clients, groups, wall, cpu, limit)


def _cell(
    agents: int, clients: int, groups: list[list[Client]], wall: float, cpu: dict, limit: float
) -> dict:
    offered = sum(len(g[0].seen) / max(g[0].producing, 1e-6) for g in groups)
    delivered = sum(len(c.seen) for g in groups for c in g) / wall
    latencies = [x for g in groups for c in g for x in c.latencies]
    gaps = sum(len(c.gaps) for g in groups for c in g)
    events = sum(len(c.seen) for g in groups for c in g)
    p99 = percentile(latencies, 99) if latencies else float("inf")
    expected = offered * clients
    producing = max(g[0].producing for g in groups)
    delivered_during = events / max(producing, 1e-6)
    saturated = p99 * 1000 > limit or gaps > 0 or delivered_during < 0.9 * expected
    return {
        "agents": agents,
        "clients": clients,
        "offered": offered,
        "delivered": delivered_during,
        "wall_rate": delivered,
        "p50": percentile(latencies, 50) if latencies else float("inf"),
        "p99": p99,
        "gaps": gaps,
        "server_us": cpu["server"] / max(1, events) * 1e6,
        "cpu": {k: v / wall for k, v in cpu.items()},
        "saturated": saturated,
    }


async def run_subscribers(gateway: Gateway, subscribers: int, agents: int) -> dict:
    """S subscribers, K creates and kills: create answer → agent_spawned at each subscriber."""
    link = GatewayLink(gateway.url, TOKEN)
    feeds = [EventFeed(link) for _ in range(subscribers)]
    for feed in feeds:
        await feed.connect()
        await feed.next_event()  # the snapshot
    seen: dict[str, list[float]] = {}
    arrived = asyncio.Event()

    async def follow(feed: EventFeed) -> None:
        while True:
            event = await feed.next_event()
            if isinstance(event, AgentSpawnedEvent):
                seen.setdefault(event.agent.id, []).append(time.monotonic())
                arrived.set()

    tasks = [asyncio.ensure_future(follow(f)) for f in feeds]
    delays: list[float] = []
    ws = gateway.workspace()
    model = gateway.script([{"text": "hi"}], name="sub.json")
    for _ in range(agents):
        made = await asyncio.to_thread(
            gateway.rest, "POST", "/shard/api/agents", {"cwd": ws, "model": model}
        )
        answered = time.monotonic()
        deadline = answered + 30
        while len(seen.get(made["id"], [])) < subscribers:
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                break
        delays.extend(max(0.0, t - answered) for t in seen.get(made["id"], []))
        await asyncio.to_thread(gateway.rest, "DELETE", f"/shard/api/agents/{made['id']}")
    await asyncio.sleep(0.5)
    received = min(f.last_seq or 0 for f in feeds)
    for t in tasks:
        t.cancel()
    for feed in feeds:
        await feed.close()
    return {
        "subscribers": subscribers,
        "agents": agents,
        "delivered": len(delays),
        "expected": subscribers * agents,
        "p50": percentile(delays, 50) if delays else float("inf"),
        "p99": percentile(delays, 99) if delays else float("inf"),
        "seq": received,
    }


def _kernel_pid(gateway: Gateway, kernel_id: str) -> int:
    for pid in children(gateway.proc.pid):
        if kernel_id in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return pid
    raise RuntimeError(f"no process runs kernel {kernel_id}")


def report(cells: list[dict], subs: list[dict]) -> str:
    anchor = next((c["server_us"] for c in cells if (c["agents"], c["clients"]) == (1, 1)), 0)
    headers = ["agents", "clients/agent", "offered ev/s", "delivered ev/s", "p50 ms", "p99 ms",
               "gaps", "server µs/event", "vs 1x1", "CPU server/kernels/clients",
               "saturated"]  # fmt: skip
    rows = [
        [
            str(c["agents"]), str(c["clients"]), f"{c['offered']:.0f}", f"{c['delivered']:.0f}",
            ms(c["p50"]), ms(c["p99"]), str(c["gaps"]), f"{c['server_us']:.0f}",
            f"{c['server_us'] / anchor:.2f}x" if anchor else "n/a",
            "/".join(f"{c['cpu'][k] * 100:.0f}%" for k in ("server", "kernels", "clients")),
            "yes" if c["saturated"] else "no",
        ]
        for c in cells
    ]  # fmt: skip
    out = ["## agents x clients", table(headers, rows)]
    if subs:
        sub_headers = ["subscribers", "agents created", "spawned delivered", "p50 ms", "p99 ms"]
        sub_rows = [
            [str(s["subscribers"]), str(s["agents"]), f"{s['delivered']}/{s['expected']}",
             ms(s["p50"]), ms(s["p99"])]
            for s in subs
        ]  # fmt: skip
        out += ["", "## orchestrator events (/shard/api/events)", table(sub_headers, sub_rows)]
    first = next((c for c in cells if c["saturated"]), None)
    where = (
        f"first saturated cell: {first['agents']} agents x {first['clients']} clients "
        f"({first['agents'] * first['clients']} sockets, {first['delivered']:.0f} events/s "
        "delivered)"
        if first
        else "no cell saturated"
    )
    return "\n".join([*out, "", where])


async def run(args: argparse.Namespace) -> tuple[list[dict], list[dict]]:
    cells: list[dict] = []
    gateway = start_gateway()
    try:
        for agents in args.agents:
            for clients in args.clients:
                cell = await run_cell(
                    gateway, agents, clients, args.rate, args.steps, args.p99_limit
                )
                cells.append(cell)
                print(f"  {agents} x {clients}: {cell['delivered']:.0f} ev/s, "
                      f"p99 {ms(cell['p99'])} ms", file=sys.stderr, flush=True)  # fmt: skip
        subs = [await run_subscribers(gateway, s, args.creates) for s in args.subscribers]
    finally:
        gateway.stop()
    return cells, subs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--rate", type=float, default=250.0, help="events/s per agent")
    parser.add_argument("--steps", type=int, default=60, help="steps of each agent's turn")
    parser.add_argument("--subscribers", type=int, nargs="*", default=[10, 100])
    parser.add_argument("--creates", type=int, default=5, help="agents created per subscriber row")
    parser.add_argument("--p99-limit", type=float, default=P99_LIMIT_MS, help="ms")
    parser.add_argument("--quick", action="store_true", help="a tiny grid (smoke)")
    args = parser.parse_args(argv)
    if args.quick:
        args.agents, args.clients, args.steps = [1, 2], [1, 2], 5
        args.subscribers, args.creates = [3], 2
    print(f"# fan-out simulation: {machine()}")
    print(f"per agent: {args.rate:.0f} events/s target, {args.steps} steps; "
          f"saturated = p99 > {args.p99_limit:.0f} ms, a gap, or < 90 % delivered\n")  # fmt: skip
    cells, subs = asyncio.run(run(args))
    print(report(cells, subs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
