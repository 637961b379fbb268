"""B1 — deterministic compaction against the parse floor, measured in the same run.

    python bench/b1_compaction.py [--quick]

For synthetic sessions of 1k, 5k and 28k entries it times:
  floor     json.loads of every line of the JSONL (the least any reader of the log pays),
            as is and with the cyclic GC paused like compaction pauses it
  load      pydantic parsing of the same lines into SessionEntry (what the engine holds)
  compact   DeterministicCompactor.compact on the parsed branch: everything folded but the tail
and prints compact/floor. Then it grows the 28k session entry by entry the way the turn loop
does (compact whenever the context reaches 80 % of a 200k window) and reports the p50/p99 of
those incremental compactions. Goals: compact <= 3x floor, and under 10 / 42 / 250 ms.
Times are the median of several runs (min in brackets); the machine's load shows in both.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, percentile, ratio, table
from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries
from shard_core.engine.compaction.tokens import estimate_entry
from shard_core.types import CompactionEntry, SessionEntry
from tests.fixtures.sessions.builders import load_entries
from tests.fixtures.sessions.synthetic import write_synthetic

SIZES = (1_000, 5_000, 28_000)
GOAL_MS = {1_000: 10.0, 5_000: 42.0, 28_000: 250.0}
WINDOW, TARGET, OVERHEAD = 200_000, 100_000, 3_000


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """(median, min) wall time of `fn` in milliseconds."""
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return percentile(times, 50), min(times)


def full_compaction(path: Path, runs: int) -> dict[str, float]:
    lines = [line for line in path.read_bytes().split(b"\n") if line]
    floor = timed(lambda: [json.loads(line) for line in lines], runs)
    gc.disable()  # compaction pauses the cyclic GC (see compactor.py): the floor without it
    try:
        bare = timed(lambda: [json.loads(line) for line in lines], runs)
    finally:
        gc.enable()
    load = timed(lambda: load_entries(path), max(1, runs // 2))
    entries = load_entries(path)
    data = CompactionInput(
        entries, estimate_entries(entries) + OVERHEAD, WINDOW, TARGET, "threshold", 0
    )
    compactor = DeterministicCompactor()
    assert compactor.compact(data) is not None
    compact = timed(lambda: compactor.compact(data), runs)
    return {"floor": floor[0], "floor_min": floor[1], "bare": bare[0], "load": load[0],
            "compact": compact[0], "compact_min": compact[1]}  # fmt: skip


def incremental(entries: list[SessionEntry]) -> list[float]:
    """Replay the session as the loop would; time every compaction it triggers."""
    compactor = DeterministicCompactor()
    branch: list[SessionEntry] = []
    live = 0
    times: list[float] = []
    for entry in entries:
        branch.append(entry)
        live += estimate_entry(entry)
        if not compactor.should_compact(live + OVERHEAD, WINDOW):
            continue
        index = len(times)
        data = CompactionInput(branch, live + OVERHEAD, WINDOW, TARGET, "threshold", index)
        start = time.perf_counter()
        details = compactor.compact(data)
        times.append((time.perf_counter() - start) * 1000)
        if details is not None:
            branch.append(CompactionEntry(id=f"c{index}", ts=0.0, details=details))
            live = details.tokens_after - OVERHEAD
    return times


def rows_for(sizes: list[int], folder: Path, runs: int) -> list[list[str]]:
    rows: list[list[str]] = []
    for size in sizes:
        path = write_synthetic(folder / f"s-{size}.jsonl", size, seed=size)
        r = full_compaction(path, runs)
        goal = GOAL_MS.get(size)
        ok = r["compact"] <= 3 * r["floor"] and (goal is None or r["compact"] <= goal)
        rows.append([
            f"{size:,}", f"{r['floor']:.1f} [{r['floor_min']:.0f}]", f"{r['bare']:.1f}",
            f"{r['load']:.1f}", f"{r['compact']:.1f} [{r['compact_min']:.0f}]",
            ratio(r["compact"], r["floor"]), ratio(r["compact"], r["bare"]),
            f"{goal:.0f}" if goal else "-", "yes" if ok else "NO",
        ])  # fmt: skip
    return rows


def main(argv: list[str]) -> int:
    """`--quick`: fewer runs; `--sizes 200,500`: other session sizes (smoke tests)."""
    runs = 3 if "--quick" in argv else 7
    sizes = list(SIZES)
    if "--sizes" in argv:
        sizes = [int(n) for n in argv[argv.index("--sizes") + 1].split(",")]
    print(f"B1 compaction — {machine()}; median of {runs} runs, [min], ms\n")
    headers = [
        "entries", "floor", "floor gc off", "load", "compact", "/floor", "/floor gc off",
        "goal ms", "ok",
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        print(table(headers, rows_for(sizes, Path(folder), runs)))
        times = incremental(load_entries(Path(folder) / f"s-{sizes[-1]}.jsonl"))
    if times:
        print(
            f"\nincremental compactions replaying the {sizes[-1]:,}-entry session (window "
            f"{WINDOW:,}, threshold 80 %, target {TARGET:,}): {len(times)} compactions, "
            f"p50 {percentile(times, 50):.1f} ms, p99 {percentile(times, 99):.1f} ms, "
            f"max {max(times):.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
