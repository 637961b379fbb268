"""The gateway benchmarks (B3b, B6, B7) still run: real servers and kernels, tiny counts, no
timing."""

from __future__ import annotations

import pytest

from bench import b3b_server_roundtrip as b3b
from bench import b6_fanout as b6
from bench import b7_starts as b7
from bench._common import table_rows

pytestmark = pytest.mark.integration


def test_b3b_measures_every_arm_and_the_floor(capsys: pytest.CaptureFixture[str]) -> None:
    assert b3b.main(["--samples", "3"]) == 0
    rows = table_rows(capsys.readouterr().out, "kernel")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (kernel, client, "3")
        for kernel, client in [
            ("shard", "v1"), ("shard", "json"), ("shard", "zmq"),
            ("ipykernel", "v1"), ("ipykernel", "json"), ("ipykernel", "zmq"),
            ("floor", "zmq echo"), ("floor", "ws relay"),
        ]
    ]  # fmt: skip
    assert [r[6] for r in rows if r[0] == "ipykernel"] == ["1.00x"] * 3  # the anchor
    assert all(r[8] == "0.000 / 0.000" for r in rows if r[0] == "floor")  # no kernel hop


def test_b6_paces_the_agent_and_loses_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert b6.main(["--clients", "2", "--seconds", "0.3", "--no-compare"]) == 0
    (row,) = table_rows(capsys.readouterr().out, "case")
    assert (row[0], row[1]) == ("shard, v1", "2")
    assert float(row[4]) >= 0  # the calibrated delay, ms per step
    assert (row[10], row[11]) == ("0", "0")  # silent, unrecovered


def test_b7_starts_cycles_and_its_anchor_leave_no_descriptor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert b7.main(["--quick"]) == 0
    out = capsys.readouterr().out
    starts = dict((r[0], r[1]) for r in table_rows(out, "B7a concurrent starts"))
    assert starts["running after"].startswith("3 ")
    for arm in ("shard", "stock ipykernel"):
        rows = table_rows(out, f"{arm}: cycles done")
        assert rows[0][0] == "0"
        assert rows[-1][0].endswith(" (idle)")
        # once idle, the server holds no more descriptors than after the first round
        assert int(rows[-1][1]) <= int(rows[1][1]), rows
    assert "Shard vs anchor after warm-up: fds " in out
