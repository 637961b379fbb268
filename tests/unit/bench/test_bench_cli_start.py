"""bench/cli_start.py still runs: every Shard arm and floor once, no anchor installed. No timing
is asserted."""

from __future__ import annotations

from bench import cli_start
from bench._common import table_rows


def test_cli_start_runs_every_shard_arm_and_its_floors() -> None:
    out = cli_start.main(["--rounds", "1", "--sizes", "1000", "--no-anchors"])
    arms = [row[0] for row in table_rows(out, "arm")]
    assert arms == ["compact 1k", "acp init", "acp new", "run", "py", "import acp"]
    ratios = [row[0] for row in table_rows(out, "ratio")]
    assert "acp init / import acp" in ratios
    assert "compact 1k / pi-vcc 1k" not in ratios  # its anchor was left out, and said so
    assert "note: anchors left out (--no-anchors)" in out
