"""Subagents: N parallel children of one parent through a real `shard gateway`.

1. A parent agent (scripted) is created; then one `POST /shard/api/jobs` launches `--children`
   parallel runs with a concurrency cap of `--children` (all at once). Every child is a real
   `shard` kernel running a one-step scripted answer. Reported: whether all complete, the time
   from the launch's acknowledgement to each child's first event (its kernel's first logged
   event, read from the child's events.jsonl), to the job's end, and the gateway's RSS before,
   at its peak while the children run, and after, per child.
2. The anchor, in the same run and the same gateway: the same number of plain agents created
   at once with `POST /shard/api/agents` (each starts a kernel the same way), time from the
   request to each agent's first event, and the gateway's RSS growth per agent. The ratio says
   what the job machinery adds on top of starting that many kernels.

    python bench/subagents.py [--children 10] [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, percentile, ratio, table
from bench._gateway import Gateway, process_usage, start_gateway

CHILD = [{"text": "done"}]


class PeakRss:
    """Samples a process's RSS every 20 ms on a thread; `peak` is the highest seen (MiB)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = process_usage(pid)[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, process_usage(self.pid)[1])

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


def first_event(home: Path, agent_id: str, deadline: float) -> float:
    """The wall-clock time of the first event the agent's kernel logged."""
    path = home / "agents" / agent_id / "events.jsonl"
    while time.monotonic() < deadline:
        try:
            line = path.read_text().split("\n", 1)[0]
            if line:
                return float(json.loads(line)["ts"])
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    raise RuntimeError(f"{agent_id} logged no event")


def launch_children(gateway: Gateway, parent: str, count: int) -> dict[str, object]:
    home = gateway.root / "shard-home"
    tasks = [f"task {i}" for i in range(count)]
    rss = PeakRss(gateway.proc.pid)
    before = process_usage(gateway.proc.pid)[1]
    job = gateway.rest(
        "POST",
        "/shard/api/jobs",
        {"parent": parent, "strategy": "parallel", "tasks": tasks, "agent": "worker",
         "concurrency": count},
    )  # fmt: skip
    acked = time.time()
    deadline = time.monotonic() + 600
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = gateway.rest("GET", f"/shard/api/jobs/{job['id']}")
    ended = time.time()
    peak = rss.stop()
    firsts = [first_event(home, r["agent_id"], deadline) - acked for r in job["runs"]]
    return {
        "states": [r["state"] for r in job["runs"]],
        "first": firsts,
        "total": ended - acked,
        "before": before,
        "peak": peak,
        "after": process_usage(gateway.proc.pid)[1],
    }


def plain_agents(gateway: Gateway, count: int, model: str) -> dict[str, object]:
    home = gateway.root / "shard-home"
    cwd = gateway.workspace()
    rss = PeakRss(gateway.proc.pid)
    before = process_usage(gateway.proc.pid)[1]
    sent = time.time()

    def create(i: int) -> str:
        body = {"cwd": cwd, "model": model, "name": f"plain-{i}"}
        return str(gateway.rest("POST", "/shard/api/agents", body)["id"])

    with ThreadPoolExecutor(count) as pool:
        ids = list(pool.map(create, range(count)))
    peak = rss.stop()
    deadline = time.monotonic() + 600
    firsts = [first_event(home, agent_id, deadline) - sent for agent_id in ids]
    for agent_id in ids:
        gateway.rest("DELETE", f"/shard/api/agents/{agent_id}")
    return {"first": firsts, "before": before, "peak": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--children", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 children (a smoke run)")
    args = parser.parse_args(argv)
    count = 2 if args.quick else args.children
    gateway = start_gateway()
    try:
        config = gateway.root / "xdg" / "shard" / "agents"
        config.mkdir(parents=True, exist_ok=True)
        child_model = gateway.script(CHILD, "child.json")
        (config / "worker.md").write_text(
            f"---\nname: worker\ndescription: answers once\nmodel: {child_model}\n---\nAnswer.\n"
        )
        parent_model = gateway.script([{"text": "hi"}], "parent.json")
        parent = gateway.rest(
            "POST", "/shard/api/agents", {"cwd": gateway.workspace(), "model": parent_model}
        )
        anchor = plain_agents(gateway, count, child_model)
        job = launch_children(gateway, str(parent["id"]), count)
    finally:
        gateway.stop()
    print(f"# subagents: {count} parallel children — {machine()}\n")
    states = job["states"]
    assert isinstance(states, list)
    completed = sum(s == "completed" for s in states)
    print(f"children completed: {completed}/{count} (states: {sorted(set(states))})")
    print(f"job launch → end: {job['total']:.2f} s\n")
    rows = []
    for name, data in (("subagent job", job), ("plain agents (anchor)", anchor)):
        firsts = data["first"]
        assert isinstance(firsts, list)
        rows.append(
            [name, f"{min(firsts):.2f}", f"{percentile(firsts, 50):.2f}", f"{max(firsts):.2f}",
             ratio(percentile(firsts, 50), percentile(anchor["first"], 50))]  # type: ignore[arg-type]
        )  # fmt: skip
    headers = ["to first child event (s)", "first", "median", "last", "median vs anchor"]
    print(table(headers, rows) + "\n")
    per_child = (float(job["peak"]) - float(job["before"])) / count  # type: ignore[arg-type]
    per_agent = (float(anchor["peak"]) - float(anchor["before"])) / count  # type: ignore[arg-type]
    memory = [
        ["subagent job", f"{job['before']:.1f}", f"{job['peak']:.1f}", f"{job['after']:.1f}",
         f"{per_child:.2f}", ratio(per_child, per_agent)],
        ["plain agents (anchor)", f"{anchor['before']:.1f}", f"{anchor['peak']:.1f}", "",
         f"{per_agent:.2f}", "1.00x"],
    ]  # fmt: skip
    headers = ["gateway RSS (MiB)", "before", "peak", "after", "per child", "vs anchor"]
    print(table(headers, memory))
    return 0 if completed == count else 1


if __name__ == "__main__":
    raise SystemExit(main())
