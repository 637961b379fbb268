"""bench/fanout_sim.py still runs end to end on a tiny grid: real gateway, agents, clients and
event subscribers; every cell delivers and no subscriber misses a spawned agent. No timing."""

from __future__ import annotations

import pytest

from bench import fanout_sim
from bench._common import table_rows

pytestmark = pytest.mark.integration


def test_the_fanout_simulation_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert fanout_sim.main(["--quick"]) == 0
    out = capsys.readouterr().out
    cells = table_rows(out, "agents")
    assert [(r[0], r[1]) for r in cells] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert all(float(r[3]) > 0 for r in cells)  # delivered events/s
    assert all(r[6] == "0" for r in cells)  # no gaps on a tiny grid
    assert cells[0][8] == "1.00x"  # the anchor cell
    (subscribers,) = table_rows(out, "subscribers")
    assert subscribers[:3] == ["3", "2", "6/6"]
