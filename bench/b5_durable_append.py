"""B5: durable append cost per turn, SessionStore against a raw os.write + fsync loop, same disk.

A turn is K = 4 entries (user prompt, assistant message with a tool call, tool result, final
assistant message; lines of about 0.5 to 5 KB) appended with `SessionStore.append`, then
`sync()`. The baseline writes the same bytes with one `os.write` per line on an O_APPEND fd and
one `os.fsync`, into a file in the same directory. Turns alternate between the two.

    python bench/b5_durable_append.py [--quick] [--turns N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the engine lives at the repo root
    sys.path.insert(0, str(ROOT))

from bench._common import filesystem, machine, ms, ratio, summarize, table  # noqa: E402
from shard_core.engine.session_store import SessionStore, new_id  # noqa: E402
from shard_core.types import (  # noqa: E402
    AssistantMessage,
    MessageDetails,
    MessageEntry,
    RequestRecord,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultDetails,
    ToolResultEntry,
    Usage,
    UserMessage,
)

Append = tuple[type[Any], Any]  # (entry class, details) as `SessionStore.append` takes them
WORDS = ["def", "return", "self", "path", "text", "None", "await", "async", "for", "in", "if"]


def _text(size: int, seed: int) -> str:
    """Code-like text of about `size` characters, with the quotes and newlines JSON escapes."""
    rng = random.Random(seed)
    out: list[str] = []
    length = 0
    while length < size:
        line = "    " + " ".join(rng.choices(WORDS, k=rng.randint(3, 9)))
        line += f'("{rng.choice(WORDS)}")\n' if rng.random() < 0.3 else "\n"
        out.append(line)
        length += len(line)
    return "".join(out)[:size]


def turn_appends(turn_id: str = "turn-bench") -> list[Append]:
    """One realistic turn: prompt ~0.5 KB, tool call ~1.5 KB, tool result ~5 KB, answer ~2 KB."""
    request = RequestRecord(
        model="claude-sonnet-4", system_hash="0" * 16, tools_hash="1" * 16, turn_id=turn_id
    )
    usage = Usage(input_tokens=12_000, output_tokens=400)
    call = ToolCallBlock(
        id="toolu_01bench",
        name="edit",
        input={"path": "src/app.py", "old_string": _text(400, 2), "new_string": _text(450, 3)},
    )
    ask = AssistantMessage(
        content=[TextBlock(text=_text(500, 1)), call], stop_reason="tool_use", usage=usage
    )
    answer = AssistantMessage(
        content=[TextBlock(text=_text(1900, 5))], stop_reason="end_turn", usage=usage
    )
    result = ToolResultDetails(
        tool_call_id=call.id,
        name="edit",
        result=ToolResult.ok(_text(4700, 4)),
        duration_ms=3.2,
        turn_id=turn_id,
    )
    prompt = UserMessage(content=[TextBlock(text=_text(450, 0))])
    return [
        (MessageEntry, MessageDetails(message=prompt, turn_id=turn_id)),
        (MessageEntry, MessageDetails(message=ask, request=request, turn_id=turn_id)),
        (ToolResultEntry, result),
        (MessageEntry, MessageDetails(message=answer, request=request, turn_id=turn_id)),
    ]


# ---------------------------------------------------------------- one turn of each


@dataclass
class Phases:
    """Per-turn seconds: everything before the fsync, the fsync, and (replica only) a split."""

    writes: list[float] = field(default_factory=list[float])
    sync: list[float] = field(default_factory=list[float])
    build: list[float] = field(default_factory=list[float])
    dump: list[float] = field(default_factory=list[float])
    syscall: list[float] = field(default_factory=list[float])

    def totals(self) -> list[float]:
        return [w + s for w, s in zip(self.writes, self.sync, strict=True)]


def shard_turn(store: SessionStore, appends: Sequence[Append], into: Phases | None) -> None:
    start = time.perf_counter()
    for entry_cls, details in appends:
        store.append(entry_cls, details)
    appended = time.perf_counter()
    store.sync()
    done = time.perf_counter()
    if into is not None:
        into.writes.append(appended - start)
        into.sync.append(done - appended)


def raw_turn(fd: int, lines: Sequence[bytes], into: Phases | None) -> None:
    start = time.perf_counter()
    for line in lines:
        os.write(fd, line)
    written = time.perf_counter()
    os.fsync(fd)
    done = time.perf_counter()
    if into is not None:
        into.writes.append(written - start)
        into.sync.append(done - written)


def replica_turn(fd: int, appends: Sequence[Append], parent: str, into: Phases | None) -> str:
    """What `SessionStore.append` + `sync` do, with a timer per phase (for attribution only)."""
    build = dump = syscall = 0.0
    start = time.perf_counter()
    for entry_cls, details in appends:
        t0 = time.perf_counter()
        entry = entry_cls(id=new_id(), parent_id=parent, ts=time.time(), details=details)
        t1 = time.perf_counter()
        data = entry.__pydantic_serializer__.to_json(entry)
        t2 = time.perf_counter()
        os.writev(fd, (data, b"\n"))
        t3 = time.perf_counter()
        build, dump, syscall = build + t1 - t0, dump + t2 - t1, syscall + t3 - t2
        parent = entry.id
    written = time.perf_counter()
    os.fsync(fd)
    done = time.perf_counter()
    if into is not None:
        into.writes.append(written - start)
        into.sync.append(done - written)
        into.build.append(build)
        into.dump.append(dump)
        into.syscall.append(syscall)
    return parent


# ---------------------------------------------------------------- measuring


@dataclass
class Result:
    shard: Phases
    replica: Phases
    raw: Phases
    line_sizes: list[int]
    where: str


def measure(folder: Path, turns: int, warmup: int = 5) -> Result:
    """Shard, the replica and raw take turns (order rotating) on three files in one directory."""
    appends = turn_appends()
    result = Result(Phases(), Phases(), Phases(), [], filesystem(folder))
    with tempfile.TemporaryDirectory(dir=folder, prefix="shard-b5-") as tmp:
        store = SessionStore.create(Path(tmp), Path(tmp))
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT  # the replica and raw logs sit beside it
        replica_fd = os.open(store.path.with_name("replica.jsonl"), flags, 0o600)
        raw_fd = os.open(store.path.with_name("raw.jsonl"), flags, 0o600)
        try:
            shard_turn(store, appends, None)
            lines = [e.model_dump_json().encode("utf-8") + b"\n" for e in store.entries[-4:]]
            result.line_sizes = [len(line) for line in lines]
            parent = new_id()
            gc.collect()  # once: a collect right before a timed turn makes its appends ~3x slower
            for i in range(warmup + turns):
                for side in [(i + k) % 3 for k in range(3)]:  # nobody always follows one fsync
                    into = (result.shard, result.replica, result.raw)[side] if i >= warmup else None
                    if side == 0:
                        shard_turn(store, appends, into)
                    elif side == 1:
                        parent = replica_turn(replica_fd, appends, parent, into)
                    else:
                        raw_turn(raw_fd, lines, into)
        finally:
            os.close(replica_fd)
            os.close(raw_fd)
            store.close()
    return result


def _median(xs: Sequence[float]) -> float:
    return summarize(xs).median


def report(r: Result, turns: int) -> str:
    raw = summarize(r.raw.totals())
    rows: list[list[str]] = []
    for label, phases in [
        ("shard: 4x append + sync()", r.shard),
        ("replica of append, timed by phase", r.replica),
        ("raw: 4x os.write + fsync", r.raw),
    ]:
        total = summarize(phases.totals())
        vs_raw = [ratio(total.median, raw.median), ratio(total.p90, raw.p90)]
        rows.append([label, ms(total.median), ms(total.p90), *vs_raw])
    main = table(["per turn", "median ms", "p90 ms", "vs raw (median)", "vs raw (p90)"], rows)

    rep = r.replica
    other = _median(rep.writes) - _median(rep.build) - _median(rep.dump) - _median(rep.syscall)
    split = table(
        ["phase, median ms per turn", "shard", "replica", "raw"],
        [
            ["before the fsync (4 appends / writes)"]
            + [ms(_median(p.writes)) for p in (r.shard, r.replica, r.raw)],
            ["  build 4 entries (ids, pydantic init)", "", ms(_median(rep.build)), "-"],
            ["  serialize (to_json)", "", ms(_median(rep.dump)), "-"],
            ["  os.writev", "", ms(_median(rep.syscall)), ms(_median(r.raw.writes))],
            ["  the rest (loop, timers)", "", ms(other), "-"],
            ["fsync", *(ms(_median(p.sync)) for p in (r.shard, r.replica, r.raw))],
        ],
    )
    own = _median(r.shard.writes) - _median(r.raw.writes)
    sizes = ", ".join(f"{n / 1024:.1f}" for n in r.line_sizes)
    return "\n\n".join(
        [
            f"B5 durable append, {time.strftime('%Y-%m-%d')}, {machine()}",
            f"{turns} turns each, log on {r.where}; entry lines of {sizes} KB. Goal: <= 1.1x raw.",
            main,
            "Where the time goes (the replica does what append does, with a timer per phase):",
            split,
            f"Shard's own cost (appends minus raw writes, medians): {ms(own)} ms per turn ="
            f" {own / raw.median:.0%} of a raw turn; the rest of any gap is fsync variance.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="20 turns, for a smoke run")
    parser.add_argument("--turns", type=int, help="turns per side (default 400)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args(argv)
    turns = args.turns or (20 if args.quick else 400)
    print(report(measure(args.dir, turns), turns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
