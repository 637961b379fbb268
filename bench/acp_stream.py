"""ACP: streaming overhead of `shard acp`, and its start to a ready session.

1. Streaming: one turn whose model streams `--chunks` text deltas (default 5,000), each
   carrying the monotonic time it was emitted, `--interval` seconds apart. The same turn goes
   through `shard run --json` (the anchor: its JSONL events) and through `shard acp`
   (`agent_message_chunk` notifications after initialize and session/new). Both are read by the
   same reader (a line, `json.loads`, the clock), so the difference is what each path adds
   between the provider and the pipe. Delay per chunk = arrival - emission (CLOCK_MONOTONIC is
   one clock for every process). A round runs both arms back to back, which one first
   alternating; each arm's p50 and p99 and their ratios are taken per round and the median of
   `--rounds` rounds is reported (a burst of load on this shared machine moves one round, not
   the result); so is the p99 of every round's delays pooled. Beside it, each arm's CPU time
   per chunk (the agent process's utime + stime from its first chunk to its last, from /proc):
   what each path costs, which the machine's scheduling does not move. Goal: ACP p50 and p99
   <= 1.2x `shard run --json`'s.
2. Start: spawn → initialize → session/new answered (a session ready for a prompt), for
   `shard acp` and, when it is installed (`--opencode PATH`, default
   /var/tmp/acp-opencode/node_modules/.bin/opencode), `opencode acp` — else the anchor is
   `shard run`'s own start (spawn → its first event, a `status`). Ratio reported, no goal.

The model is an extension provider (`chunks/N`) written into a temporary SHARD_HOME.

    python bench/acp_stream.py [--chunks 5000] [--interval 0.001] [--rounds 7] [--starts 5]
                               [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine, percentile

PROVIDER = '''
"""chunks/N: streams N text deltas, each its emission time in ns, INTERVAL s apart."""
import asyncio, os, time
from shard_core.contracts import ExtensionApi, ProviderSetup, ProviderSpec
from shard_core.types import AssistantMessage, MessageDone, TextBlock, TextDelta, Usage


class Chunks:
    name = "chunks"

    def __init__(self, setup: ProviderSetup) -> None:
        self.model = setup.model
        self.context_window = 200_000
        self.count = int(setup.model)
        self.interval = float(os.environ.get("BENCH_CHUNK_INTERVAL", "0.001"))

    async def stream(self, request):
        parts = []
        for _ in range(self.count):
            piece = f"{time.monotonic_ns()} "
            parts.append(piece)
            yield TextDelta(text=piece)
            await asyncio.sleep(self.interval)
        usage = Usage(input_tokens=10, output_tokens=self.count)
        message = AssistantMessage(content=[TextBlock(text="".join(parts))], model=self.model,
                                   stop_reason="end_turn", usage=usage)
        yield MessageDone(message=message, usage=usage)


def extension(api: ExtensionApi) -> None:
    api.register_provider(ProviderSpec(prefix="chunks", build=Chunks, keyless=True))
'''


def environment(root: Path, interval: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    home = root / "shard-home"
    (home / "extensions").mkdir(parents=True, exist_ok=True)
    (home / "extensions" / "chunks.py").write_text(PROVIDER, encoding="utf-8")
    env["SHARD_HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(root / "xdg")
    env["BENCH_CHUNK_INTERVAL"] = str(interval)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return env


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Arm:
    """One run's delays, and its agent's CPU time from the first chunk to the last."""

    def __init__(self, pid: int, chunks: int) -> None:
        self.pid = pid
        self.chunks = chunks
        self.texts: list[str] = []
        self.arrivals: list[int] = []
        self.cpu: list[float] = []

    def chunk(self, text: str, now: int) -> None:
        self.texts.append(text)
        self.arrivals.append(now)
        if len(self.texts) in (1, self.chunks):
            self.cpu.append(cpu_seconds(self.pid))

    def result(self) -> tuple[list[float], float]:
        spent = self.cpu[-1] - self.cpu[0] if len(self.cpu) == 2 else float("nan")
        return delays_of(self.texts, self.arrivals), spent / max(1, self.chunks - 1)


def delays_of(texts: list[str], arrivals: list[int]) -> list[float]:
    out: list[float] = []
    for text, arrived in zip(texts, arrivals, strict=True):
        for stamp in text.split():
            out.append((arrived - int(stamp)) / 1e9)
    return out


SHARD = [sys.executable, "-m", "shard_kernel.cli"]


async def run_json(env: dict[str, str], work: Path, chunks: int) -> tuple[list[float], float]:
    process = await asyncio.create_subprocess_exec(
        *SHARD, "run", "--json", "--model", f"chunks/{chunks}", "go",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env, cwd=work,
        limit=1 << 24,
    )  # fmt: skip
    assert process.stdout is not None
    arm = Arm(process.pid, chunks)
    while line := await process.stdout.readline():
        now = time.monotonic_ns()
        event = json.loads(line)
        if event["type"] == "message_delta" and event["channel"] == "text":
            arm.chunk(event["delta"], now)
    await process.wait()
    return arm.result()


class Acp:
    """`shard acp` (or any ACP agent) over raw JSON-RPC lines, read like the anchor."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    @classmethod
    async def start(cls, command: list[str], env: dict[str, str], cwd: Path) -> Acp:
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env, cwd=cwd, limit=1 << 24,
        )  # fmt: skip
        return cls(process)

    async def send(self, method: str, params: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        await self.process.stdin.drain()
        return self.next_id

    async def until(self, request_id: int, on_update: Any = None) -> dict[str, Any]:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            now = time.monotonic_ns()
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]
            if on_update is not None and message.get("method") == "session/update":
                on_update(message["params"]["update"], now)
        raise RuntimeError("the agent closed stdout")

    async def ready(self, cwd: Path) -> str:
        init = {"protocolVersion": 1, "clientCapabilities": {}}
        await self.until(await self.send("initialize", init))
        new = await self.until(await self.send("session/new", {"cwd": str(cwd), "mcpServers": []}))
        return str(new["sessionId"])

    async def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def run_acp(env: dict[str, str], work: Path, chunks: int) -> tuple[list[float], float]:
    agent = await Acp.start([*SHARD, "acp", "--model", f"chunks/{chunks}"], env, work)
    arm = Arm(agent.process.pid, chunks)

    def on_update(update: dict[str, Any], now: int) -> None:
        if update["sessionUpdate"] == "agent_message_chunk":
            arm.chunk(update["content"]["text"], now)

    try:
        session = await agent.ready(work)
        prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
        await agent.until(await agent.send("session/prompt", prompt), on_update)
    finally:
        await agent.stop()
    return arm.result()


async def start_acp(command: list[str], env: dict[str, str], work: Path) -> float:
    began = time.monotonic()
    agent = await Acp.start(command, env, work)
    try:
        await agent.ready(work)
        return time.monotonic() - began
    finally:
        await agent.stop()


async def start_run(env: dict[str, str], work: Path) -> float:
    """`shard run`'s own start: spawn → its first event (the status before the turn)."""
    began = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *SHARD, "run", "--json", "--model", "chunks/1", "go",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env, cwd=work,
    )  # fmt: skip
    assert process.stdout is not None
    await process.stdout.readline()
    elapsed = time.monotonic() - began
    await process.wait()
    return elapsed


def p(samples: list[float], q: float) -> str:
    return f"{percentile(samples, q) * 1000:.2f} ms"


async def rounds(args: argparse.Namespace, env: dict[str, str], work: Path) -> None:
    """Both arms per round (the first alternating); per-round percentiles, medians of rounds."""
    arms = {"anchor": run_json, "acp": run_acp}
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
    pooled: dict[str, list[float]] = {name: [] for name in arms}
    cpu: dict[str, list[float]] = {name: [] for name in arms}
    for index in range(args.rounds):
        order = list(arms) if index % 2 == 0 else list(reversed(arms))
        for name in order:
            delays, per_chunk = await arms[name](env, work, args.chunks)
            assert len(delays) == args.chunks, (name, len(delays))
            found[name].append((percentile(delays, 50), percentile(delays, 99)))
            pooled[name] += delays
            cpu[name].append(per_chunk)
        (a50, a99), (s50, s99) = found["anchor"][-1], found["acp"][-1]
        print(f"  round {index + 1}: run --json p50 {a50 * 1e3:.3f} p99 {a99 * 1e3:.2f} ms, "
              f"acp p50 {s50 * 1e3:.3f} p99 {s99 * 1e3:.2f} ms, ratio p50 {s50 / a50:.2f}x "
              f"p99 {s99 / a99:.2f}x", flush=True)  # fmt: skip
    pairs = zip(found["anchor"], found["acp"], strict=True)
    ratios = [(s[0] / a[0], s[1] / a[1]) for a, s in pairs]

    def median(values: list[float]) -> float:
        return percentile(values, 50)

    apart = f"{args.interval * 1000:g} ms apart"
    print(f"\nstreaming: {args.chunks} chunks, {apart}; median of {args.rounds} rounds")
    for label, name in (("shard run --json", "anchor"), ("shard acp", "acp")):
        p50 = median([r[0] for r in found[name]]) * 1e3
        p99 = median([r[1] for r in found[name]]) * 1e3
        whole = percentile(pooled[name], 99) * 1e3
        used = median(cpu[name]) * 1e6
        print(f"  {label:<17} p50 {p50:.3f} ms  p99 {p99:.2f} ms  (pooled p99 {whole:.2f} ms; "
              f"CPU {used:.0f} us per chunk)")  # fmt: skip
    r50, r99 = median([r[0] for r in ratios]), median([r[1] for r in ratios])
    spread = f"p99 ratio {min(r[1] for r in ratios):.2f}-{max(r[1] for r in ratios):.2f}x"
    verdict = "met" if max(r50, r99) <= 1.2 else "missed"
    print(f"  ratio             p50 {r50:.2f}x  p99 {r99:.2f}x  (goal <= 1.2x: {verdict}; "
          f"rounds' {spread})")  # fmt: skip
    whole = percentile(pooled["acp"], 99) / percentile(pooled["anchor"], 99)
    used = median(cpu["acp"]) / median(cpu["anchor"])
    print(f"  pooled p99 ratio  {whole:.2f}x;  CPU per chunk ratio {used:.2f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=5000)
    parser.add_argument("--interval", type=float, default=0.001)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--opencode", default="/var/tmp/acp-opencode/node_modules/.bin/opencode")
    parser.add_argument("--skip-starts", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.chunks, args.rounds, args.starts = 200, 1, 1
    print(machine())
    root = Path(tempfile.mkdtemp(prefix="bench-acp-"))
    try:
        env = environment(root, args.interval)
        work = root / "work"
        work.mkdir()
        await rounds(args, env, work)
        if not args.skip_starts:
            await start_arms(args, env, work)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def start_arms(args: argparse.Namespace, env: dict[str, str], work: Path) -> None:
    opencode = Path(args.opencode)
    shard: list[float] = []
    other: list[float] = []
    name = "shard run start"
    use_opencode = opencode.exists()
    if use_opencode:
        try:
            await asyncio.wait_for(start_acp([str(opencode), "acp"], env, work), 60)
            name = "opencode acp"
        except (TimeoutError, RuntimeError, OSError) as exc:
            print(f"\nopencode acp did not start here ({exc!r}); anchor: shard run's own start")
            use_opencode = False
    for _ in range(args.starts):
        shard.append(await start_acp([*SHARD, "acp", "--model", "chunks/1"], env, work))
        if use_opencode:
            other.append(await start_acp([str(opencode), "acp"], env, work))
        else:
            other.append(await start_run(env, work))
    print(f"\nstart to a ready session: {args.starts} runs each (median)")
    print(f"  shard acp   {percentile(shard, 50) * 1000:.0f} ms (initialize + session/new)")
    print(f"  {name:<11} {percentile(other, 50) * 1000:.0f} ms")
    print(f"  ratio       {percentile(shard, 50) / percentile(other, 50):.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
