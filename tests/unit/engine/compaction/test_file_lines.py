"""Files And Changes keeps every changed path: the newest on lines of their own, the rest in one
compact list that fit folds into and merge never caps (the summary used to list the newest 40
and drop the rest, and fit dropped more when the budget was tight)."""

from __future__ import annotations

import re

from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor, format_summary
from shard_core.engine.compaction.file_lines import (
    DETAILED,
    compact_line,
    file_lines,
    fold_oldest,
    folded_length,
    parse_compact,
)
from shard_core.engine.compaction.sections import Section
from shard_core.engine.compaction.tokens import estimate_entries
from shard_core.types import CompactionDetails
from tests.fixtures.sessions.builders import SessionBuilder

PATH = re.compile(r"pkg/mod_\d+/file_\d+\.py")


def _edits(b: SessionBuilder, paths: list[str]) -> None:
    for k, path in enumerate(paths):
        if k % 5 == 0:
            b.user(f"Please change {path.rsplit('/', 1)[-1]} next")
        b.read(path, "\n".join(f"line {i} of {path}" for i in range(80)))
        if k % 7 == 3:
            b.write(path, "print('x')\n")
        else:
            b.edit(path, "line 3", "line three")


def _compact(b: SessionBuilder, summary_tokens: int = 6_000) -> CompactionDetails:
    tokens = estimate_entries(b.entries) + 1_000
    index = sum(e.type == "compaction" for e in b.entries)
    data = CompactionInput(b.entries, tokens, 200_000, 100_000, "manual", index)
    compactor = DeterministicCompactor(keep_recent_tokens=500, summary_tokens=summary_tokens)
    details = compactor.compact(data)
    assert details is not None
    return details


def _paths(n: int, start: int = 0) -> list[str]:
    return [f"pkg/mod_{i % 7}/file_{i}.py" for i in range(start, start + n)]


def test_a_session_that_changed_60_files_keeps_all_60_in_its_summary() -> None:
    b = SessionBuilder()
    _edits(b, _paths(60))
    b.user("What is left?")
    b.say("Nothing; all sixty are done.")
    summary = _compact(b).summary
    listed = set(PATH.findall(summary.split("## Files And Changes", 1)[1].split("\n## ")[0]))
    assert listed == set(_paths(60))


def test_a_tight_budget_folds_paths_into_the_compact_list_and_drops_none() -> None:
    b = SessionBuilder()
    _edits(b, _paths(60))
    b.user("What is left?")
    summary = _compact(b, summary_tokens=300).summary  # far less than the paths alone
    files = summary.split("## Files And Changes\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert files[0].startswith("- also changed: pkg/mod_0/file_0.py, ")
    assert set(PATH.findall("\n".join(files))) == set(_paths(60))
    assert "## Session Goal" in summary  # the goal is still there beside them


def test_a_later_compaction_keeps_the_paths_of_the_earlier_one() -> None:
    b = SessionBuilder()
    _edits(b, _paths(50))
    b.user("Now the next batch")
    first = _compact(b)
    b.compaction(first)
    _edits(b, _paths(30, start=50))
    b.user("What is left?")
    second = _compact(b)
    assert set(PATH.findall(second.summary)) >= set(_paths(80))


def test_the_compact_list_reads_back_and_folding_keeps_every_path() -> None:
    files = {f"d/f{i}.py": (["created"] if i % 3 == 0 else ["modified"], [i]) for i in range(45)}
    lines = file_lines(files)
    assert len(lines) == DETAILED + 1
    assert parse_compact(lines[0]) == [(f"d/f{i}.py", files[f"d/f{i}.py"][0][-1]) for i in range(5)]
    assert compact_line(parse_compact(lines[0])) == lines[0]
    shrunk: tuple[str, ...] | None = tuple(lines)
    steps = 0
    while (folded := fold_oldest(shrunk)) is not None:
        shrunk, steps = folded, steps + 1
    assert steps == DETAILED
    assert shrunk is not None
    assert len(shrunk) == 1
    assert [p for p, _ in parse_compact(shrunk[0])] == list(files)
    assert folded_length(lines) == len(shrunk[0])


def test_format_never_cuts_into_the_paths_even_with_no_budget() -> None:
    paths = [f"src/very/long/folder/name/module_{i}.py" for i in range(60)]
    files = {p: (["modified"], [i]) for i, p in enumerate(paths)}
    sections = [
        Section("goal", "Session Goal", ("make it work",), "sticky-goal"),
        Section("files", "Files And Changes", tuple(file_lines(files)), "union-files"),
        Section("turns", "Earlier Turns", tuple(f"turn {i}" for i in range(30)), "rolling-turns"),
    ]
    text = format_summary(sections, max_chars=200)
    assert all(p in text for p in paths)
    assert "make it work" in text
