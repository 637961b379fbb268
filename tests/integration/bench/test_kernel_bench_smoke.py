"""The kernel benchmarks (B2, B3a) still run: real kernels, tiny counts, no timing asserted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import b2_kernel_start as b2
from bench import b3a_zmq_roundtrip as b3a
from bench._common import table_rows

pytestmark = pytest.mark.integration  # starts a shard kernel and a stock ipykernel


def test_b2_starts_and_stops_both_kernels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = dict(os.environ)
    assert b2.main(["--quick", "--runs", "1", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    starts = table_rows(out, "from start_kernel to")
    assert [(r[0], r[1]) for r in starts] == [
        ("kernel_info_reply", "shard"),
        ("kernel_info_reply", "python3"),
        ("first empty cell's reply", "shard"),
        ("first empty cell's reply", "python3"),
        ("agent status event (shard only)", "shard"),
        ("attach snapshot (shard only)", "shard"),
    ]
    assert [r[5] for r in starts if r[1] == "python3"] == ["1.00x", "1.00x"]  # the anchor
    assert [r[0] for r in table_rows(out, "shutdown of")] == ["shard", "python3"]
    memory = table_rows(out, "memory of")
    assert [r[0] for r in memory] == ["shard", "python3"]
    assert all(float(r[1]) > 10 for r in memory)  # MiB: a live Python process was read
    assert list(tmp_path.iterdir()) == []
    assert dict(os.environ) == environ  # the temp Jupyter dirs were only set for the run


def test_b3a_round_trips_every_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert b3a.main(["--quick", "--samples", "3", "--dir", str(tmp_path)]) == 0
    rows = table_rows(capsys.readouterr().out, "round trip")
    assert [(r[0], r[1]) for r in rows] == [
        ("empty cell", "shard"),
        ("empty cell", "python3"),
        ("kernel_info", "shard"),
        ("kernel_info", "python3"),
        ("comm heartbeat", "shard"),
    ]
    assert [r[5] for r in rows] == [rows[0][5], "1.00x", rows[2][5], "1.00x", ""]
    assert list(tmp_path.iterdir()) == []
