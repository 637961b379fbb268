"""B1 (compaction) and B8 (recall) still run end to end on tiny sessions. No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import b1_compaction as b1
from bench import b8_recall as b8
from tests.fixtures.sessions.builders import load_entries
from tests.fixtures.sessions.synthetic import write_synthetic


def test_b1_times_file_to_summary_against_the_parse_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert b1.main(["--quick", "--sizes", "300,1200"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| entries"))
    assert [c.strip() for c in header.split("|")[1:-1]] == [
        "entries", "floor", "floor gc off", "store read", "file→summary", "/floor",
        "file/floor", "/floor gc off", "memory", "memory/floor", "goal ms", "ok",
    ]  # fmt: skip
    assert "| 300 " in out
    assert "| 1,200 " in out


def test_b1_file_compaction_is_what_the_command_line_prints(tmp_path: Path) -> None:
    path = write_synthetic(tmp_path / "s.jsonl", 2_000, seed=3)
    details = b1.file_compaction(path)
    assert details is not None
    assert details == b1.file_compaction(path)  # the same file, the same bytes


def test_b1_after_n_compacts_once_per_size(tmp_path: Path) -> None:
    entries = load_entries(write_synthetic(tmp_path / "s.jsonl", 2_000, seed=5))
    rows = b1.after_n(entries, [50, 200], runs=1)
    assert [row[0] for row in rows] == ["50", "200"]  # empty: no first compaction


def test_b1_incremental_times_warm_and_cold_boundaries_and_the_warm_up(tmp_path: Path) -> None:
    entries = load_entries(write_synthetic(tmp_path / "s.jsonl", 4_000, seed=7))
    out = b1.incremental(entries)  # asserts a cold cache gives the warm cache's bytes
    assert len(out["warm"]) == len(out["cold"]) >= 1
    assert len(out["observe"]) == len(out["observed"]) > 1
    assert 0 < sum(out["observed"]) <= len(entries)  # every entry worked out at most once


def test_b8_runs_both_parts_without_rg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(b8, "find_rg", lambda: None)  # unit tests start no processes
    b8.part1(tmp_path, 400, 2)
    b8.part2(tmp_path, 60, 2)
    out = capsys.readouterr().out
    assert "goal p50 <= 10 ms, worst <= 100 ms" in out
    assert "search_home: one cache for the home" in out
    assert "rg: not found" in out
    assert (tmp_path / ".recall-home.sqlite").exists()
