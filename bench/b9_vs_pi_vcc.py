"""B9 — Shard's compaction beside pi-vcc's, in one run: summary size, fact recall, speed.

    PI_VCC_SRC=DIR python bench/b9_vs_pi_vcc.py [--quick] [--sizes 1000,5000,28000]
        [--corpus planted,varied] [--pi-vcc-src DIR] [--pi-vcc-cache DIR] [--no-process]

(pi-vcc setup: see bench/_pi_vcc.py; without a checkout the script stops and says what to do.)

Corpora (`--corpus`, all by default; each gets its own tables):
  planted   `bench/_planted.py`: the synthetic fixture's mix (reads, edits, pytest, greps,
            commits, logs) with goal, preference, scope change, decision, open question planted
  varied    `bench/_varied.py`: an independent generator — thirteen tools, results from a few
            bytes to a few hundred KB, tens of edited files, many small turns and a few huge
            ones, steers, injected context, parallel calls, three test runners
Last failure, last commit and files changed are worked out from the folded entries.

For each corpus and size it writes a fact-recall session, lets Shard's `DeterministicCompactor`
compact it (window 200k, the command line's defaults), converts the entries Shard folded
(everything before the first kept entry) to a pi session, and gives those to pi-vcc's
`compile()`. Then:

  recall    each system's summary scored against the same facts (`_planted.score`)
  tokens    summary characters / 4 for both (Shard's own estimate; the same divisor for both)
  in-proc   Shard: `compact()` on the branch already in memory, a new compactor each run (it
            also finds the cut, which pi-vcc is handed); pi-vcc: `compile({messages})` on the
            messages already loaded, timed inside node. Batches alternate (node, Python, ...),
            min and median of all runs.
  warm      Shard's boundary in the turn loop: `compact()` by a compactor that `observe`d the
            session after each turn (untimed), so the per-entry work is done before the
            boundary; asserted to give the cold compaction's bytes.
  process   the whole process: `shard session compact FILE --dry-run` against
            `node driver.mjs 1 FILE` (node start, bundle load, read, compile, print), alternating.

Goals (issue 27): recall >= pi-vcc's and tokens <= 1.0x pi-vcc's at every size; in-process
<= 0.5x pi-vcc; whole process <= 1.0x.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _pi_vcc as pi
from bench._common import machine, percentile, table
from bench._planted import Facts, Score, facts_of, score, write_planted
from bench._varied import varied_facts, write_varied
from bench.b1_compaction import _turn_ends  # pyright: ignore[reportPrivateUsage]
from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.access import access_for, declare_tools
from shard_core.engine.compaction import DeterministicCompactor, estimate_entries
from shard_core.types import CompactionDetails, SessionEntry
from shard_kernel.notebook_tools.edit_tool import NotebookEditTool
from tests.fixtures.sessions.builders import load_entries

SIZES = (1_000, 5_000, 28_000)
CORPORA: dict[str, tuple[Callable[[Path, int, int], Path], Callable[[list[Any]], Facts]]] = {
    "planted": (write_planted, facts_of),
    "varied": (write_varied, varied_facts),
}
"""Corpus name → (write a session of N entries with a seed, the facts of folded lines)."""
WINDOW, OVERHEAD = 200_000, 3_000
SHARD = Path(sys.executable).with_name("shard")


def shard_input(entries: list[SessionEntry]) -> CompactionInput:
    tokens = estimate_entries(entries) + OVERHEAD
    return CompactionInput(entries, tokens, WINDOW, WINDOW // 2, "threshold", 0)


def shard_times(data: CompactionInput, runs: int) -> list[float]:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        DeterministicCompactor().compact(data)
        times.append((time.perf_counter() - start) * 1000)
    return times


def warm_times(entries: list[SessionEntry], data: CompactionInput, runs: int) -> list[float]:
    """`compact()` at the boundary by a compactor that observed the session turn by turn (the
    turn loop's case: `observe` after each turn, untimed); its result must be the cold one's."""
    compactor = DeterministicCompactor()
    for end, turn_end in enumerate(_turn_ends(entries), start=1):
        if turn_end:
            compactor.observe(entries[:end])
    cold = DeterministicCompactor().compact(data)
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        warm = compactor.compact(data)
        times.append((time.perf_counter() - start) * 1000)
        assert warm == cold, "a warmed cache must give the cold compaction's bytes"
    return times


def process_times(argv: list[str], runs: int) -> list[float]:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return times


def fold(
    path: Path, facts: Callable[[list[Any]], Facts] = facts_of
) -> tuple[list[SessionEntry], CompactionDetails, Facts, Path]:
    """Shard's compaction of the session at `path`, the `facts` of what it folded, and the
    folded entries as a pi session file."""
    _declare_notebook_edit()
    entries = load_entries(path)
    details = DeterministicCompactor().compact(shard_input(entries))
    assert details is not None, f"nothing to fold in {path}"
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    kept = details.first_kept_entry_id
    folded = lines if kept is None else lines[: [x["id"] for x in lines].index(kept)]
    pi_path = pi.convert_file(path, path.with_suffix(".pi.jsonl"), kept)
    return entries, details, facts(folded), pi_path


def _declare_notebook_edit() -> None:
    """The varied corpus edits notebooks: declared as a kernel agent declares it (once)."""
    if access_for(NotebookEditTool.name) is None:
        declare_tools([NotebookEditTool])


def _hits(s: Score) -> str:
    missed = [name for name, hit in s.hits.items() if not hit]
    files = f"files {s.files_named}/{s.files_total}"
    return f"{files}; missed: {', '.join(missed) or 'none'}"


def corpus_tables(corpus: str, sizes: list[int], bundle: Path, runs: int, process: bool) -> str:
    """One corpus's three tables (size and recall, in process, whole process)."""
    write, facts_for = CORPORA[corpus]
    folder = pi.temp_dir()
    size_rows: list[list[str]] = []
    speed_rows: list[list[str]] = []
    proc_rows: list[list[str]] = []
    for size in sizes:
        path = write(folder / f"{corpus}-{size}.jsonl", size, size)
        entries, details, facts, pi_path = fold(path, facts_for)
        data = shard_input(entries)
        mine: list[float] = []
        warm: list[float] = []
        theirs: list[float] = []
        pi_summary, pi_messages = "", 0
        for _ in range(3):  # alternate batches: the machine's moment hits both
            result = pi.run(bundle, [pi_path], max(1, runs // 3))[0]
            theirs += result.times_ms
            pi_summary, pi_messages = result.summary, result.messages
            mine += shard_times(data, max(1, runs // 3))
            warm += warm_times(entries, data, max(1, runs // 3))
        s_score, p_score = score(details.summary, facts), score(pi_summary, facts)
        s_tok, p_tok = len(details.summary) // 4, len(pi_summary) // 4
        size_rows += [
            [f"{size:,}", "shard", f"{len(details.summary):,}", f"{s_tok:,}",
             f"{s_tok / p_tok:.2f}x", f"{s_score.recall:.2f}", _hits(s_score)],
            [f"{size:,}", "pi-vcc", f"{len(pi_summary):,}", f"{p_tok:,}", "1.00x",
             f"{p_score.recall:.2f}", _hits(p_score)],
        ]  # fmt: skip
        ms, mw, mp = percentile(mine, 50), percentile(warm, 50), percentile(theirs, 50)
        speed_rows.append([
            f"{size:,}", f"{pi_messages:,}", f"{ms:.1f} [{min(mine):.1f}]",
            f"{mp:.1f} [{min(theirs):.1f}]", f"{ms / mp:.2f}x", f"{min(mine) / min(theirs):.2f}x",
            f"{mw:.1f} [{min(warm):.1f}]", f"{mw / mp:.2f}x",
        ])  # fmt: skip
        if process:
            shard_argv = [str(SHARD), "session", "compact", str(path), "--dry-run"]
            node_argv = ["node", str(bundle), "1", str(pi_path)]
            a: list[float] = []
            b: list[float] = []
            for _ in range(max(1, runs // 3)):
                a += process_times(shard_argv, 1)
                b += process_times(node_argv, 1)
            pa, pb = percentile(a, 50), percentile(b, 50)
            proc_rows.append([f"{size:,}", f"{pa:.0f} [{min(a):.0f}]", f"{pb:.0f} [{min(b):.0f}]",
                              f"{pa / pb:.2f}x"])  # fmt: skip
    out = [f"### corpus: {corpus}\n",
           "Summary size and fact recall (goal: tokens <= 1.0x pi-vcc, recall >= pi-vcc)",
           table(["entries", "system", "chars", "tokens", "vs pi-vcc", "recall", "detail"],
                 size_rows),
           "\nIn process, ms: median [min] (goal <= 0.5x pi-vcc)",
           table(["entries", "pi messages", "shard compact (cold)", "pi-vcc compile",
                  "median ratio", "min ratio", "shard at the boundary (warm)", "warm ratio"],
                 speed_rows)]  # fmt: skip
    if proc_rows:
        out += ["\nWhole process, ms: median [min] (goal <= 1.0x)",
                table(["entries", "shard session compact --dry-run", "node pi-vcc", "ratio"],
                      proc_rows)]  # fmt: skip
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    runs = 3 if quick else 9
    sizes: list[int] = list(SIZES)
    if "--sizes" in argv:
        sizes = [int(n) for n in argv[argv.index("--sizes") + 1].split(",")]
    corpora = list(CORPORA)
    if "--corpus" in argv:
        corpora = argv[argv.index("--corpus") + 1].split(",")
        unknown = [c for c in corpora if c not in CORPORA]
        if unknown:
            raise SystemExit(f"unknown corpus {', '.join(unknown)}; known: {', '.join(CORPORA)}")
    opt = {k: argv[argv.index(k) + 1] for k in ("--pi-vcc-src", "--pi-vcc-cache") if k in argv}
    bundle = pi.setup(opt.get("--pi-vcc-src"), opt.get("--pi-vcc-cache"))
    print(f"B9 Shard vs pi-vcc — {machine()}; {runs} runs per side\n")
    for corpus in corpora:
        print(corpus_tables(corpus, sizes, bundle, runs, "--no-process" not in argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
