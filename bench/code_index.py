"""Code index bench: cold index of a ~2,000-file real tree against Universal Ctags on the same
tree in the same run (in worker processes and in-process; and the lazy build's first answer,
near a focus file, against its completion); the incremental update after one edit; the repo
map at that size.

The tree is Python sources copied from the installed packages (site-packages, packages in name
order, every `.py` until the count is reached), so it is real code and the same on every run of
one environment. Cold runs are child processes (a fresh SHARD_HOME each), so peak RSS is theirs
alone (the largest of the process and its workers); CPU adds the workers'. `ctags -R` runs in a
child too. The four alternate, `--runs` times each.

    python bench/code_index.py [--files 2000] [--runs 3] [--edits 200] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, ms, percentile, ratio, table
from shard_core.capabilities.code_index import CodeIndex, CodeIntelligence, repo_map
from shard_core.capabilities.code_index.lsp import Diagnostics

GOAL_COLD_RATIO = 1.5
GOAL_UPDATE_P99_MS = 50.0
GOAL_MAP_MS = 300.0

_COLD = """
import json, resource, sys, time
from pathlib import Path
from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.pool import ParsePool
started = time.perf_counter()
index = CodeIndex(Path(sys.argv[1]), Path(sys.argv[2]), pool=ParsePool(int(sys.argv[3]) or None))
index.refresh()
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime + kids.ru_utime + kids.ru_stime
rss = max(usage.ru_maxrss, kids.ru_maxrss)
print(json.dumps({"seconds": seconds, "files": len(index.files), "rss_kb": rss, "cpu": cpu}))
"""
_LAZY = """
import json, sys, time
from pathlib import Path
from shard_core.capabilities.code_index import CodeIndex
started = time.perf_counter()
index = CodeIndex(Path(sys.argv[1]), Path(sys.argv[2]))
index.begin([sys.argv[3]])
found = index.symbol(sys.argv[4])
first = time.perf_counter() - started
said = index.coverage()
index.wait()
done = time.perf_counter() - started
print(json.dumps({"first": first, "done": done, "found": len(found), "said": said or ""}))
"""
_IMPORT_ONLY = """
import json, resource
import shard_core.capabilities.code_index
from shard_core.capabilities.code_index.languages import grammar
grammar("python")
print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""
_CTAGS = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run(["ctags", "-R", "-f", sys.argv[2], sys.argv[1]], check=True)
seconds = time.perf_counter() - started
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = kids.ru_utime + kids.ru_stime
print(json.dumps({"seconds": seconds, "rss_kb": kids.ru_maxrss, "cpu": cpu}))
"""


def build_tree(dest: Path, count: int) -> int:
    """Copy `count` .py files from the installed packages into `dest` (package order by name)."""
    packages = Path(site.getsitepackages()[0])
    copied = 0
    for package in sorted(p for p in packages.iterdir() if p.is_dir() and "." not in p.name):
        for source in sorted(package.rglob("*.py")):
            if copied >= count:
                return copied
            if source.is_symlink() or not source.is_file():
                continue
            target = dest / source.relative_to(packages)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            copied += 1
    return copied


def child(code: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


Runs = list[dict[str, float]]


def cold(tree: Path, work: Path, runs: int) -> tuple[Runs, Runs, Runs, Runs]:
    """(pool, in-process, lazy first answer, ctags) runs, interleaved round by round."""
    pooled: Runs = []
    serial: Runs = []
    lazy: Runs = []
    theirs: Runs = []
    has_ctags = shutil.which("ctags") is not None
    focus = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))[-1]
    for run in range(runs):
        pooled.append(child(_COLD, str(tree), str(work / f"home-pool-{run}"), "0"))
        serial.append(child(_COLD, str(tree), str(work / f"home-serial-{run}"), "1"))
        home = str(work / f"home-lazy-{run}")
        lazy.append(child(_LAZY, str(tree), home, focus, "__init__"))
        if has_ctags:
            theirs.append(child(_CTAGS, str(tree), str(work / f"tags-{run}")))
    return pooled, serial, lazy, theirs


def incremental(tree: Path, work: Path, edits: int) -> tuple[list[float], float, int]:
    """(update seconds per edit, one warm re-stat of everything, files parsed by the edits)."""
    index = CodeIndex(tree, work / "home-incremental")
    index.refresh()
    target = sorted(tree.rglob("*.py"))[len(index.files) // 2]
    original = target.read_text(encoding="utf-8", errors="replace")
    before = index.stats.parsed
    samples: list[float] = []
    for i in range(edits):
        target.write_text(original + f"\n\ndef bench_edit_{i}(value: int) -> int:\n    return 1\n")
        started = time.perf_counter()
        index.update([target])  # what the file_mutated handler does
        samples.append(time.perf_counter() - started)
    assert index.symbol(f"bench_edit_{edits - 1}"), "the last edit's symbol is indexed"
    started = time.perf_counter()
    index.refresh()
    restat = time.perf_counter() - started
    target.write_text(original)
    return samples, restat, index.stats.parsed - before


def repo_maps(tree: Path, work: Path, runs: int) -> tuple[float, list[float], int]:
    """(the first map's seconds: graph built from nothing; each later map's seconds after one
    edit, as a session sees it; the lines shown). Focus: 1% of the files."""
    index = CodeIndex(tree, work / "home-map")
    index.refresh()
    code = CodeIntelligence(index, Diagnostics(index.root, None))
    focus = sorted(index.files)[: max(1, len(index.files) // 100)]
    target = index.root / focus[0]
    original = target.read_text(encoding="utf-8", errors="replace")

    def one() -> tuple[float, int]:
        started = time.perf_counter()
        text = repo_map.render(repo_map.fit(code.ranked(focus), 1024))
        return time.perf_counter() - started, len(text.splitlines())

    first, lines = one()
    samples: list[float] = []
    for i in range(runs):
        target.write_text(original + f"\n\ndef bench_map_{i}() -> None:\n    helper_{i}()\n")
        index.update([target])  # untimed: the file_mutated handler's part
        seconds, lines = one()
        samples.append(seconds)
    target.write_text(original)
    return first, samples, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="code index bench")
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="≤200 files, 1 run, 20 edits")
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.runs, args.edits = min(args.files, 200), 1, 20
    with tempfile.TemporaryDirectory(prefix="shard-bench-code-") as tmp:
        work = Path(tmp)
        tree = work / "tree"
        files = build_tree(tree, args.files)
        size = sum(p.stat().st_size for p in tree.rglob("*.py"))
        print(f"# code index bench: {files} files, {size / 1e6:.1f} MB of Python")
        print(f"machine: {machine()}\n")
        report(tree, work, args)
    return 0


def report(tree: Path, work: Path, args: argparse.Namespace) -> None:
    base = child(_IMPORT_ONLY)["rss_kb"]
    pooled, serial, lazy, theirs = cold(tree, work, args.runs)
    files = int(pooled[0]["files"])
    ctags_s = percentile([r["seconds"] for r in theirs], 50) if theirs else None

    def row(name: str, found: Runs) -> list[str]:
        seconds = percentile([r["seconds"] for r in found], 50)
        rss = max(r["rss_kb"] for r in found)
        cpu = percentile([r["cpu"] for r in found], 50)
        vs = ratio(seconds, ctags_s) if ctags_s else "-"
        over = f"{(rss - base) / 1024:.0f}" if name.startswith("shard") else "-"
        return [name, ms(seconds), f"{cpu:.2f}", f"{files / seconds:,.0f}", f"{rss / 1024:.0f}",
                over, vs]  # fmt: skip

    rows = [row("shard, worker pool", pooled), row("shard, in-process", serial)]
    if theirs and ctags_s is not None:
        rows.append(row("ctags -R", theirs))
        best = percentile([r["seconds"] for r in pooled], 50)
        ok = "yes" if best <= GOAL_COLD_RATIO * ctags_s else "no"
        rows.append(["goal", "", "", "", "", "", f"pool ≤ {GOAL_COLD_RATIO}x: {ok}"])
    else:
        print("ctags not found (apt-get install universal-ctags): cold index shown alone")
    headers = ["cold index (median)", "ms", "CPU s", "files/s", "peak RSS MB", "over import MB",
               "vs ctags"]  # fmt: skip
    print(table(headers, rows) + "\n")
    first = percentile([r["first"] for r in lazy], 50)
    done = percentile([r["done"] for r in lazy], 50)
    print(table(
        ["lazy build (median)", "first answer ms", "complete ms", "first vs ctags", "it said"],
        [[f"focus + code_symbol, {files} files", ms(first), ms(done),
          ratio(first, ctags_s) if ctags_s else "-", str(lazy[0]["said"]) or "(complete)"]],
    ) + "\n")  # fmt: skip

    samples, restat, parsed = incremental(tree, work, args.edits)
    p99 = percentile(samples, 99) * 1000
    print(table(
        ["incremental", "edits", "files parsed", "p50 ms", "p99 ms", "goal p99 ms", "ok"],
        [["update after one edit", str(len(samples)), str(parsed), ms(percentile(samples, 50)),
          f"{p99:.2f}", f"{GOAL_UPDATE_P99_MS:g}", "yes" if p99 <= GOAL_UPDATE_P99_MS else "no"],
         ["re-stat all (after bash)", "1", "0", ms(restat), "", "", ""]],
    ) + "\n")  # fmt: skip

    first, maps, lines = repo_maps(tree, work, max(3, args.runs * 3))
    worst = max(maps) * 1000
    print(table(
        ["repo_map (1,024 tokens)", "runs", "lines", "median ms", "max ms", "goal ms", "ok"],
        [[f"{files} files, after an edit", str(len(maps)), str(lines), ms(percentile(maps, 50)),
          f"{worst:.1f}", f"{GOAL_MAP_MS:g}", "yes" if worst <= GOAL_MAP_MS else "no"],
         [f"{files} files, first map", "1", "", ms(first), "", "", ""]],
    ))  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
