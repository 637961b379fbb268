"""B2: kernel start, agent readiness, shutdown and memory — shard against stock ipykernel, same run.

Each run starts a kernel through jupyter_client (`KernelManager`, tcp on 127.0.0.1) and times,
from the `start_kernel` call: the `kernel_info_reply`; the reply to a first empty cell (the shard
kernel answers it only once its agent has booted, stock ipykernel at once); and, shard only, the
agent's first `status` event on the `shard-events` comm and the snapshot that answers an observer
attach. Then RSS from /proc, then shutdown_request → `shutdown_reply` and → process exit. The two
kernels alternate, run by run; one untimed pair first warms the page cache.

    python bench/b2_kernel_start.py [--runs 20] [--quick] [--control]

`--control` adds a third kernel: ShardKernel launched the naive way (ipykernel's OutStream left
on), to show the shutdown stall this measurement is able to catch.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: shard_kernel lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    compile_sources,
    machine,
    ms,
    percentile,
    ratio,
    summarize,
    table,
)
from shard_kernel.local_kernels import shard_kernel_manager  # noqa: E402

SHARD, STOCK, NAIVE = "shard", "python3", "shard-outstream"
EVENTS_COMM_ID = "shard-events"
STALL_CAP = 15.0  # seconds to wait for a kernel to exit by itself before killing it
NAIVE_LAUNCH = (  # what a first wrapper kernel does: IPKernelApp's defaults, OutStream included
    "from ipykernel.kernelapp import IPKernelApp; from shard_kernel.kernel import ShardKernel; "
    "IPKernelApp.launch_instance(kernel_class=ShardKernel)"
)


# ---------------------------------------------------------------- kernels in temp dirs


@contextmanager
def isolated(root: Path) -> Iterator[dict[str, str]]:
    """Temp JUPYTER_*, IPYTHONDIR, SHARD_HOME for this process and its kernels; yields their env.

    The shard kernel gets a scripted model (one text answer) and an empty workspace, so its agent
    boots offline and the same way every run.
    """
    saved = dict(os.environ)
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        os.environ[name] = str(root / name.lower())
    os.environ["SHARD_HOME"] = str(root / "shard-home")
    os.environ["XDG_CONFIG_HOME"] = str(root / "xdg")
    os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
    for key in [k for k in os.environ if k.endswith("_API_KEY")]:
        del os.environ[key]
    script = root / "script.json"
    script.write_text(json.dumps({"name": "bench", "steps": [{"text": "ok"}]}))
    (root / "ws").mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(KERNEL_SHARD_MODEL=f"scripted/{script}", KERNEL_SHARD_CWD=str(root / "ws"))
    _install_naive_spec(root / "jupyter_data_dir" / "kernels" / NAIVE)
    try:
        yield env
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _install_naive_spec(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", NAIVE_LAUNCH, "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "Shard (OutStream on)", "language": "shard"}
    (folder / "kernel.json").write_text(json.dumps(spec))


def bench_context() -> zmq.Context[Any]:
    """Client sockets retry a not-yet-bound kernel every 10 ms, not ZMQ's default 100 ms, so a
    start time measures the kernel rather than the client's reconnect timer (same for both)."""
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.setsockopt(zmq.RECONNECT_IVL, 10)
    return ctx


@dataclass
class Kernel:
    """A started kernel: its manager, a client on the bench's context, and when it was started."""

    name: str
    km: KernelManager
    kc: BlockingKernelClient
    started: float
    pid: int
    log: Path
    log_from: int  # this kernel's part of the log starts here

    def since_start(self, at: float) -> float:
        return at - self.started

    def log_text(self) -> str:
        with self.log.open("rb") as f:
            f.seek(self.log_from)
            return f.read().decode(errors="replace")


def start(name: str, env: dict[str, str], ctx: zmq.Context[Any], log: Path) -> Kernel:
    """Start kernel `name` (its stderr appended to `log`) and connect a client; not waiting."""
    km = shard_kernel_manager(context=ctx) if name == SHARD else KernelManager(kernel_name=name)
    km.context = ctx
    kernel_env = {**env, "KERNEL_SHARD_AGENT_ID": f"agent-bench-{uuid.uuid4().hex[:8]}"}
    with log.open("ab") as err:  # kernel logs go to a file, not into the bench's report
        log_from = err.tell()
        started = time.perf_counter()
        km.start_kernel(env=kernel_env, stdout=subprocess.DEVNULL, stderr=err)
    kc = km.client(context=ctx)
    kc.start_channels()
    pid = km.provisioner.pid if km.provisioner is not None else None
    if not isinstance(pid, int):
        raise RuntimeError(f"no pid for the {name} kernel")
    return Kernel(name, km, kc, started, pid, log, log_from)


def stop(kernel: Kernel) -> None:
    kernel.kc.stop_channels()
    if kernel.km.has_kernel:
        kernel.km.shutdown_kernel(now=True)
    kernel.km.cleanup_resources()


Match = Callable[[dict[str, Any]], bool]  # is this the message we wait for?


class Inbox:
    """Reads a client's shell and IOPub channels and notes when each expected message arrived.

    Messages nobody expects (status, execute_input, ...) are read and dropped.
    """

    def __init__(self, kc: BlockingKernelClient) -> None:
        self.channels = [kc.shell_channel, kc.iopub_channel]
        self.poller = zmq.Poller()
        for channel in self.channels:
            self.poller.register(channel.socket, zmq.POLLIN)
        self.expected: dict[str, Match] = {}
        self.seen: dict[str, float] = {}

    def expect(self, key: str, match: Match) -> None:
        self.seen.pop(key, None)
        self.expected[key] = match

    def wait(self, *keys: str, timeout: float = 60.0) -> dict[str, float]:
        """Read until every key in `keys` was seen; their perf_counter() arrival times."""
        deadline = time.perf_counter() + timeout
        while not all(k in self.seen for k in keys):
            left = deadline - time.perf_counter()
            if left <= 0:
                missing = [k for k in keys if k not in self.seen]
                raise TimeoutError(f"no {', '.join(missing)} within {timeout:.0f} s")
            ready = dict(self.poller.poll(left * 1000))
            for channel in self.channels:
                if channel.socket in ready:
                    self._sort(channel.get_msg(timeout=0), time.perf_counter())
        return {k: self.seen[k] for k in keys}

    def _sort(self, msg: dict[str, Any], at: float) -> None:
        for key, match in list(self.expected.items()):
            if match(msg):
                self.seen[key] = at
                del self.expected[key]


def reply_to(msg_id: str, msg_type: str) -> Match:
    def match(msg: dict[str, Any]) -> bool:
        return msg["msg_type"] == msg_type and msg["parent_header"].get("msg_id") == msg_id

    return match


def comm_data(comm_id: str, data_type: str) -> Match:
    def match(msg: dict[str, Any]) -> bool:
        if msg["msg_type"] != "comm_msg" or msg["content"].get("comm_id") != comm_id:
            return False
        data = msg["content"].get("data", {})
        if data.get("type") == "event_batch":  # a burst of events in one message
            return any(e.get("type") == data_type for e in data.get("events", []))
        return data.get("type") == data_type

    return match


def open_shard_comm(kc: BlockingKernelClient, client_id: str, role: str = "observer") -> str:
    """Send comm_open on target `shard` (an attach); the snapshot comes back on IOPub."""
    comm_id = f"comm-{uuid.uuid4().hex[:8]}"
    data = {"role": role, "client_id": client_id, "since": -1}
    content = {"comm_id": comm_id, "target_name": "shard", "data": data}
    kc.shell_channel.send(kc.session.msg("comm_open", content))
    return comm_id


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


# ---------------------------------------------------------------- one run


@dataclass
class Run:
    """Seconds from start_kernel (None where it does not apply), RSS in KiB, shutdown seconds."""

    info: float
    first_cell: float
    status_event: float | None
    snapshot: float | None
    rss_info: int
    rss_ready: int
    shutdown: Shutdown


def boot(kernel: Kernel, timeout: float = 60.0) -> dict[str, float]:
    """kernel_info, then a first empty cell (and an attach, for a shard kernel); arrival times."""
    kc, inbox = kernel.kc, Inbox(kernel.kc)
    shard = kernel.name != STOCK
    if shard:  # the agent boots as soon as the kernel starts: its status may beat kernel_info,
        # or even the IOPub subscription (then it is lost, as for any late client; the attach
        # snapshot is how a client gets the state)
        inbox.expect("status", comm_data(EVENTS_COMM_ID, "status"))
    inbox.expect("info", reply_to(kc.kernel_info(), "kernel_info_reply"))
    inbox.wait("info", timeout=timeout)
    rss_info = rss_kib(kernel.pid)
    inbox.expect("cell", reply_to(kc.execute("", store_history=False), "execute_reply"))
    if shard:
        inbox.expect("snapshot", comm_data(open_shard_comm(kc, "bench"), "snapshot"))
    inbox.wait(*(["cell", "snapshot"] if shard else ["cell"]), timeout=timeout)
    return {**inbox.seen, "rss_info": rss_info, "rss_ready": rss_kib(kernel.pid)}


@dataclass
class Shutdown:
    reply: float  # shutdown_request sent → shutdown_reply received (exit time if none came)
    exit: float  # shutdown_request sent → process gone (the cap for a stalled kernel)
    stacks: str = ""  # a stalled shard kernel's thread stacks (faulthandler, SIGUSR1)


def shut_down(kernel: Kernel, cap: float = STALL_CAP) -> Shutdown:
    """shutdown_request on control, then poll every ms for the reply and for the process exit."""
    process = kernel.km.provisioner.process if kernel.km.provisioner is not None else None
    if not isinstance(process, subprocess.Popen):
        raise RuntimeError("the kernel process is not a local Popen")
    control = kernel.kc.control_channel
    sent = time.perf_counter()
    is_reply = reply_to(kernel.kc.shutdown(), "shutdown_reply")
    reply: float | None = None
    while process.poll() is None:
        if time.perf_counter() - sent > cap:
            return Shutdown(reply or cap, cap, _stacks(kernel, process))
        if reply is None and control.socket.poll(1):
            if is_reply(control.get_msg(timeout=0)):
                reply = time.perf_counter() - sent
        elif reply is not None:
            time.sleep(0.001)
    exited = time.perf_counter() - sent
    return Shutdown(reply or exited, exited)


def _stacks(kernel: Kernel, process: subprocess.Popen[bytes]) -> str:
    """Kill a stalled kernel; a shard kernel first dumps its threads' stacks into its log."""
    stacks = ""
    if kernel.name == SHARD:  # shard_kernel.__main__ registers faulthandler on SIGUSR1
        process.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        text = kernel.log_text()
        stacks = text[text.find("Thread 0x") :] if "Thread 0x" in text else ""
    process.kill()
    process.wait()
    return stacks


def one_run(name: str, env: dict[str, str], ctx: zmq.Context[Any], root: Path) -> Run:
    kernel = start(name, env, ctx, root / f"{name}.log")
    try:
        seen = boot(kernel)
        down = shut_down(kernel)
    finally:
        stop(kernel)
    status, snapshot = seen.get("status"), seen.get("snapshot")
    return Run(
        info=kernel.since_start(seen["info"]),
        first_cell=kernel.since_start(seen["cell"]),
        status_event=None if status is None else kernel.since_start(status),
        snapshot=None if snapshot is None else kernel.since_start(snapshot),
        rss_info=int(seen["rss_info"]),
        rss_ready=int(seen["rss_ready"]),
        shutdown=down,
    )


@dataclass
class Results:
    runs: dict[str, list[Run]] = field(default_factory=dict[str, list[Run]])


def measure(kernels: Sequence[str], runs: int, root: Path, warmup: int = 1) -> Results:
    """`runs` start → shutdown cycles per kernel, alternating, after `warmup` untimed ones."""
    results = Results({name: [] for name in kernels})
    ctx = bench_context()
    try:
        with isolated(root) as env:
            for i in range(warmup + runs):
                for name in kernels if i % 2 == 0 else list(reversed(kernels)):
                    run = one_run(name, env, ctx, root)
                    if i >= warmup:
                        results.runs[name].append(run)
    finally:
        ctx.destroy(linger=0)
    return results


# ---------------------------------------------------------------- report


def _stats(values: Sequence[float], base: Sequence[float] | None) -> list[str]:
    """median, p90, max in ms; then median and p90 against the anchor's (blank without one)."""
    s = summarize(values)
    cells = [ms(s.median), ms(s.p90), ms(max(values))]
    if not base:
        return [*cells, "", ""]
    b = summarize(base)
    return [*cells, ratio(s.median, b.median), ratio(s.p90, b.p90)]


def _starts(results: Results) -> str:
    columns: list[tuple[str, Callable[[Run], float | None]]] = [
        ("kernel_info_reply", lambda r: r.info),
        ("first empty cell's reply", lambda r: r.first_cell),
        ("agent status event (shard only)", lambda r: r.status_event),
        ("attach snapshot (shard only)", lambda r: r.snapshot),
    ]
    rows: list[list[str]] = []
    for label, get in columns:
        base = [v for r in results.runs[STOCK] if (v := get(r)) is not None]
        for name, runs in results.runs.items():
            values = [v for r in runs if (v := get(r)) is not None]
            missed = f" ({len(runs) - len(values)} not seen)" if len(values) < len(runs) else ""
            if values:
                rows.append([label + missed, name, *_stats(values, base)])
    anchor = [f"median vs {STOCK}", f"p90 vs {STOCK}"]
    return table(["from start_kernel to", "kernel", "median ms", "p90 ms", "max ms", *anchor], rows)


def _shutdowns(results: Results) -> str:
    base = [r.shutdown.exit for r in results.runs[STOCK]]
    rows: list[list[str]] = []
    for name, runs in results.runs.items():
        exits = [r.shutdown.exit for r in runs]
        slow = sum(e > 1.0 for e in exits)
        reply = ms(summarize([r.shutdown.reply for r in runs]).median)
        rows.append([name, reply, *_stats(exits, base), f"{slow}/{len(runs)}"])
    headers = ["shutdown of", "reply median ms", "exit median ms", "exit p90 ms", "exit max ms",
               f"median vs {STOCK}", f"p90 vs {STOCK}", "exits > 1 s"]  # fmt: skip
    return table(headers, rows)


def _memory(results: Results) -> str:
    rows: list[list[str]] = []
    for name, runs in results.runs.items():
        at_info = percentile([r.rss_info for r in runs], 50)
        ready = [r.rss_ready for r in runs]
        mib = [f"{kib / 1024:.1f}" for kib in (at_info, percentile(ready, 50), max(ready))]
        rows.append([name, *mib])
    headers = ["memory of", "RSS at kernel_info MiB", "RSS after first cell MiB", "max MiB"]
    return table(headers, rows)


def report(results: Results, runs: int, compiled: str = "") -> str:
    parts = [
        f"B2 kernel start/shutdown, {time.strftime('%Y-%m-%d')}, {machine()}",
        *([compiled] if compiled else []),
        f"{runs} runs per kernel, alternating, tcp on 127.0.0.1. Goal: kernel_info <= 1.0x"
        f" {STOCK}. The shard kernel answers its first cell only once its agent is up.",
        _starts(results),
        "Shutdown: shutdown_request on control -> shutdown_reply, and -> process exit; a kernel"
        f" still alive after {STALL_CAP:.0f} s is killed and counted at {STALL_CAP:.0f} s.",
        _shutdowns(results),
        "Memory (VmRSS from /proc/<pid>/status):",
        _memory(results),
    ]
    stalled = [r.shutdown.stacks for runs in results.runs.values() for r in runs]
    if stacks := next((s for s in stalled if s), ""):
        parts.append("A stalled shard kernel's threads (faulthandler):\n\n" + stacks.strip())
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, help="runs per kernel (default 20)")
    parser.add_argument("--quick", action="store_true", help="2 runs, for a smoke run")
    parser.add_argument("--control", action="store_true", help=f"add the {NAIVE} kernel")
    parser.add_argument("--dir", type=Path, help="where the temp dirs go (default: system temp)")
    args = parser.parse_args(argv)
    runs = args.runs or (2 if args.quick else 20)
    kernels = [SHARD, STOCK, *([NAIVE] if args.control else [])]
    compiled = compile_sources(ROOT)
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="shard-b2-") as tmp:
        results = measure(kernels, runs, Path(tmp), warmup=0 if args.quick else 1)
    print(report(results, runs, compiled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
