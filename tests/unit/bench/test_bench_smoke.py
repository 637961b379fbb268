"""The benchmarks still run: each script end to end with tiny counts. No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import b4_loop_overhead as b4
from bench import b5_durable_append as b5
from bench._common import Summary, percentile, summarize, table


def test_percentile_interpolates_between_ranks() -> None:
    assert [percentile([4.0, 1.0, 3.0, 2.0], q) for q in (0, 50, 90, 100)] == [
        1.0,
        2.5,
        pytest.approx(3.7),
        4.0,
    ]
    assert summarize([2.0, 1.0]) == Summary(median=1.5, p90=pytest.approx(1.9), count=2)
    assert table(["a", "bb"], [["1", "2"]]).splitlines() == [
        "| a | bb |",
        "|---|----|",
        "| 1 | 2  |",
    ]


async def test_b4_shard_turn_makes_every_step(tmp_path: Path) -> None:
    sample = await b4.shard_timer(tmp_path)(3)
    assert len(sample.request_times) == 4  # three tool steps, then the answer
    assert sample.seconds > 0
    assert list(tmp_path.iterdir()) == []  # each turn's log lives in its own temp dir


async def test_b4_profile_names_engine_functions(tmp_path: Path) -> None:
    text = await b4.profile_shard(tmp_path, steps=3, reps=1, top=5)
    assert "shard_core/engine/session.py" in text


async def test_b4_runs_against_pydantic_ai(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is B4's anchor (dev extra)")
    out = await b4.run(["--steps", "2", "--reps", "1", "--dir", str(tmp_path), "--no-tmpfs"])
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert [row.split("|")[1].strip().split(",")[0] for row in rows] == ["shard", "pydantic-ai"]
    assert rows[-1].split("|")[7].strip() == "1.00x"  # the anchor against itself


def test_b5_turn_lines_are_realistic_sizes() -> None:
    sizes = [len(d.model_dump_json()) for _, d in b5.turn_appends()]
    assert len(sizes) == 4
    assert all(400 <= n <= 5500 for n in sizes), sizes


def test_b5_main_prints_both_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert b5.main(["--turns", "3", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| shard: 4x append + sync()" in out
    assert "| raw: 4x os.write + fsync" in out
    assert list(tmp_path.iterdir()) == []
