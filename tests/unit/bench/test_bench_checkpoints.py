"""The checkpoints bench still runs with tiny counts (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from bench import checkpoints


async def test_the_checkpoints_bench_runs(tmp_path: Path) -> None:
    rows = await checkpoints.edit_cost(tmp_path, 3)
    assert rows[1][0] == "edit, 100 KB file, checkpoints"
    sizes = checkpoints.store_size(tmp_path, 3)
    assert sizes[0][0] == "checkpoint store, 3 edits"
    rewinds = checkpoints.rewind_cost(tmp_path, 1, files=5)
    assert rewinds[0][0] == "rewind of 5 files"
