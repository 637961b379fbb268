"""B4: turn-loop overhead per model → tool → model step, Shard against pydantic-ai, same run.

Both loops get a zero-latency function-driven model that calls an in-memory `noop` tool N times
and then answers with text. Per step = the time of the whole turn / N. Shard also writes its
durable JSONL (fsync at turn end), measured on a disk directory and on tmpfs (/dev/shm);
pydantic-ai keeps its history in memory.

    python bench/b4_loop_overhead.py [--quick] [--profile] [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the engine and tests/fixtures live at the root
    sys.path.insert(0, str(ROOT))

from bench._common import filesystem, machine, ms, ratio, summarize, table  # noqa: E402
from shard_core.contracts import PermissionOutcome, PermissionQuery, ToolContext  # noqa: E402
from shard_core.engine.registry import ToolRegistryImpl  # noqa: E402
from shard_core.engine.session import AgentSession, SessionConfig  # noqa: E402
from shard_core.engine.session_store import SessionStore  # noqa: E402
from shard_core.types import Allow, Decision, JsonObject, ProviderRequest, ToolResult  # noqa: E402
from tests.fixtures.function_provider import FunctionProvider, Reply  # noqa: E402

TMPFS = Path("/dev/shm")
TurnTimer = Callable[[int], Awaitable["TurnSample"]]


@dataclass
class TurnSample:
    """One turn: total seconds and the time at which each model request started."""

    seconds: float
    request_times: list[float] = field(default_factory=list[float])


# ---------------------------------------------------------------- Shard


class NoopTool:
    name = "noop"
    description = "Do nothing and say ok."
    input_schema: JsonObject = {"type": "object", "properties": {}}
    read_only = True

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("ok")


class _AllowAll:
    def evaluate(self, query: PermissionQuery) -> Decision:
        return Allow(rule="bench")

    async def authorize(self, query: PermissionQuery) -> PermissionOutcome:
        return PermissionOutcome(Allow(rule="bench"), "rule", "bench")


class _BuildMode:
    name = "build"
    description = "all tools"

    def filter_tools(self, tools: Any) -> list[Any]:
        return list(tools)

    def prompt_section(self, ctx: Any) -> str | None:
        return None

    def vote(self, tool: Any, input: Any) -> Decision | None:
        return None

    def on_turn_end(self, message: Any, ctx: Any) -> Any:
        return None


def shard_session(folder: Path, steps: int, stamps: list[float]) -> AgentSession:
    """A session whose provider calls `noop` `steps` times, then answers."""

    def reply(_request: ProviderRequest, n: int) -> Reply:
        stamps.append(time.perf_counter())
        return {"tool_calls": [("noop", {})]} if n < steps else "done"

    workspace = folder / "ws"
    workspace.mkdir()
    tools = ToolRegistryImpl()
    tools.register(NoopTool())
    return AgentSession(
        SessionConfig(agent_id="bench", cwd=workspace, roots=[workspace], max_steps=steps + 1),
        store=SessionStore.create(folder / "sessions", workspace),
        provider=FunctionProvider(reply),
        tools=tools,
        modes={"build": _BuildMode()},
        gate=_AllowAll(),
        stable_sections=[],
    )


def shard_timer(log_root: Path, profiler: cProfile.Profile | None = None) -> TurnTimer:
    """Times `session.run` only; each turn gets a fresh session and log under `log_root`."""

    async def turn(steps: int) -> TurnSample:
        with tempfile.TemporaryDirectory(dir=log_root, prefix="shard-b4-") as tmp:
            stamps: list[float] = []
            session = shard_session(Path(tmp), steps, stamps)
            if profiler:
                profiler.enable()
            try:
                start = time.perf_counter()
                end = await session.run("go")
                seconds = time.perf_counter() - start
            finally:
                if profiler:
                    profiler.disable()
                session.store.close()
            if end.reason != "completed" or len(stamps) != steps + 1:
                raise RuntimeError(f"shard turn ended {end.reason} after {len(stamps)} requests")
            return TurnSample(seconds, stamps)

    return turn


# ---------------------------------------------------------------- pydantic-ai


def pydantic_ai_timer() -> TurnTimer:
    """The same task on pydantic-ai's `Agent` + `FunctionModel` (imported lazily: a dev extra)."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import UsageLimits

    state: dict[str, Any] = {"steps": 0, "stamps": []}

    async def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # async on purpose: pydantic-ai runs a sync model function in a worker thread
        stamps: list[float] = state["stamps"]
        stamps.append(time.perf_counter())
        n = len(stamps) - 1
        if n < state["steps"]:
            return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id=f"c{n}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(reply))

    @agent.tool_plain
    async def noop() -> str:  # pyright: ignore[reportUnusedFunction]
        """Do nothing and say ok."""
        return "ok"

    async def turn(steps: int) -> TurnSample:
        state["steps"], state["stamps"] = steps, []
        start = time.perf_counter()
        result = await agent.run("go", usage_limits=UsageLimits(request_limit=None))
        seconds = time.perf_counter() - start
        if result.output != "done" or len(state["stamps"]) != steps + 1:
            raise RuntimeError(f"pydantic-ai turn ended with {result.output!r}")
        return TurnSample(seconds, state["stamps"])

    return turn


# ---------------------------------------------------------------- measuring


@dataclass
class Case:
    label: str
    timer: TurnTimer
    samples: dict[int, list[TurnSample]] = field(default_factory=dict[int, list[TurnSample]])


async def measure(cases: Sequence[Case], steps: Sequence[int], reps: dict[int, int]) -> None:
    """One warm-up turn per case, then `reps` turns each, the case order rotating every rep."""
    for n in steps:
        for case in cases:
            await case.timer(n)
            case.samples[n] = []
        gc.collect()  # once per N; inside the turns the collector runs as it would in use
        for rep in range(reps[n]):
            for i in range(len(cases)):
                case = cases[(rep + i) % len(cases)]
                case.samples[n].append(await case.timer(n))


def _step_growth(samples: Sequence[TurnSample]) -> tuple[float, float]:
    """Median duration of the first and of the last tenth of the steps, across the turns.

    A step is the time between two model requests; a step cost that grows along the turn means
    per-step work proportional to the history.
    """
    first: list[float] = []
    last: list[float] = []
    for s in samples:
        gaps = [b - a for a, b in zip(s.request_times, s.request_times[1:], strict=False)]
        window = max(1, len(gaps) // 10)
        first += gaps[:window]
        last += gaps[-window:]
    return summarize(first).median, summarize(last).median


def report(cases: Sequence[Case], steps: Sequence[int], anchor: Case) -> str:
    rows: list[list[str]] = []
    for n in steps:
        base = summarize([s.seconds / n for s in anchor.samples[n]])
        for case in cases:
            per_step = summarize([s.seconds / n for s in case.samples[n]])
            first, last = _step_growth(case.samples[n])
            rows.append(
                [
                    case.label,
                    str(n),
                    str(per_step.count),
                    ms(per_step.median),
                    ms(per_step.p90),
                    f"{ms(first)} → {ms(last)}",
                    ratio(per_step.median, base.median),
                    ratio(per_step.p90, base.p90),
                ]
            )
    headers = [
        "loop",
        "N",
        "reps",
        "median ms/step",
        "p90 ms/step",
        "step ms, first→last 10%",
        f"median vs {anchor.label}",
        "p90 vs",
    ]
    return table(headers, rows)


# ---------------------------------------------------------------- profiling


def _where(key: tuple[str, int, str]) -> str:
    path, line, func = key
    for marker in (str(ROOT) + "/", "site-packages/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{line}:{func}" if line else func


async def profile_shard(log_root: Path, steps: int, reps: int, top: int = 15) -> str:
    """cProfile Shard turns only; top functions by self time and shard_core ones by total."""
    await shard_timer(log_root)(steps)  # warm-up, not profiled
    profiler = cProfile.Profile()
    timer = shard_timer(log_root, profiler)
    for _ in range(reps):
        await timer(steps)
    stats: dict[tuple[str, int, str], tuple[int, int, float, float, Any]]
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.values())
    by_self = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    ours = [kv for kv in stats.items() if "/shard_core/" in kv[0][0]]
    by_total = sorted(ours, key=lambda kv: kv[1][3], reverse=True)[:top]

    def rows(items: Sequence[tuple[tuple[str, int, str], Any]], col: int) -> list[list[str]]:
        return [[_where(k), f"{v[1]}", f"{v[col] / total:.1%}"] for k, v in items]

    return "\n\n".join(
        [
            f"Profile: {reps} Shard turns of N={steps} under cProfile, {total * 1000:.0f} ms",
            "Self time (where the CPU is spent):",
            table(["function", "calls", "share"], rows(by_self, 2)),
            "Inclusive time of shard_core functions:",
            table(["function", "calls", "share"], rows(by_total, 3)),
        ]
    )


# ---------------------------------------------------------------- main


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few repetitions, for a smoke run")
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--reps", type=int, help="repetitions per N (default 40 / 12 by N)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()), help="disk dir")
    parser.add_argument("--no-tmpfs", action="store_true", help="skip the /dev/shm variant")
    parser.add_argument("--profile", action="store_true", help="cProfile Shard at the largest N")
    return parser.parse_args(argv)


def _reps(args: argparse.Namespace) -> dict[int, int]:
    if args.reps:
        return dict.fromkeys(args.steps, args.reps)
    small, large = (3, 2) if args.quick else (40, 12)
    return {n: small if n <= 10 else large for n in args.steps}


async def run(argv: Sequence[str] | None = None) -> str:
    args = _parse(argv)
    anchor = Case("pydantic-ai", pydantic_ai_timer())
    cases = [Case(f"shard, log on {filesystem(args.dir)}", shard_timer(args.dir))]
    if not args.no_tmpfs and TMPFS.is_dir():
        cases.append(Case(f"shard, log on {filesystem(TMPFS)}", shard_timer(TMPFS)))
    cases.append(anchor)
    await measure(cases, args.steps, _reps(args))
    parts = [
        f"B4 loop overhead, {time.strftime('%Y-%m-%d')}, {machine()}",
        "Goal: Shard <= 1 ms/step and <= 0.5x pydantic-ai. pydantic-ai keeps history in memory;"
        " Shard appends every message to its JSONL and fsyncs once at turn end.",
        report(cases, args.steps, anchor),
    ]
    if args.profile:
        parts.append(await profile_shard(args.dir, max(args.steps), 2 if args.quick else 5))
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    print(asyncio.run(run(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
