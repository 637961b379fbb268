"""The terminal round-trip bench still runs end to end with tiny counts. No timing is asserted."""

from __future__ import annotations

import pytest

from bench import terminal_roundtrip
from bench._common import table_rows


def test_the_terminal_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert terminal_roundtrip.main(["--runs", "4", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# terminal round trip: echo through a pty, 4 samples each side")
    assert [row[0] for row in table_rows(out, "echo round trip")] == ["p50", "p99"]
