"""The code index bench still runs end to end on a tiny tree. No timing is asserted."""

from __future__ import annotations

import pytest

from bench import code_index
from bench._common import table_rows


def test_the_code_index_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert code_index.main(["--quick", "--files", "30"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# code index bench: 30 files")
    cold = table_rows(out, "cold index (median)")
    assert [r[0] for r in cold[:2]] == ["shard, worker pool", "shard, in-process"]
    [lazy] = table_rows(out, "lazy build (median)")
    assert lazy[0] == "focus + code_symbol, 30 files"
    assert lazy[4] == "(complete)"  # 30 files: indexed whole before the first answer
    [update, restat] = table_rows(out, "incremental")
    assert update[:3] == ["update after one edit", "20", "20"]
    assert restat[:3] == ["re-stat all (after bash)", "1", "0"]
    [after_edit, first] = table_rows(out, "repo_map (1,024 tokens)")
    assert after_edit[:2] == ["30 files, after an edit", "3"]
    assert first[:2] == ["30 files, first map", "1"]
