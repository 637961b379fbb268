"""The cold index parses in worker processes (same index as in-process, no process left
behind), begins near the focus and answers while the rest is indexed (saying so), and is
shared through the store by a second index over the same folder."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import psutil
import pytest

from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.pool import Job, ParsePool, ParseWorkersError, Result
from shard_core.capabilities.code_index.store import IndexedFile

SOURCES = {
    "py": "class Box{i}(Base):\n    def open(self, n: int) -> 'Box{i}':\n        return make(n)\n",
    "ts": "interface Shape{i} {{ area(): number }}\nfunction draw{i}(s: Shape{i}) {{ s.area() }}\n",
    "go": "package p\n\ntype T{i} struct{{}}\n\nfunc (t T{i}) Run() {{ helper() }}\n",
    "md": "# Notes {i}\n\n## Part\n",
}


def tree(root: Path, count: int) -> Path:
    for i in range(count):
        suffix = list(SOURCES)[i % len(SOURCES)]
        path = root / f"d{i // 10:02d}" / f"f{i:03d}.{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SOURCES[suffix].format(i=i))
    return root


def table(index: CodeIndex) -> dict[str, tuple[str, object, object]]:
    return {rel: _plain(entry) for rel, entry in index.files.items()}


def _plain(entry: IndexedFile) -> tuple[str, object, object]:
    return entry.digest, entry.symbols.definitions, entry.symbols.references


def test_the_pool_builds_the_same_index_as_in_process(tmp_path: Path) -> None:
    ws = tree(tmp_path / "ws", 120)
    serial = CodeIndex(ws, pool=ParsePool(workers=1))
    pooled = CodeIndex(ws, pool=ParsePool(workers=2, min_files=1))
    assert serial.refresh() == pooled.refresh() == 120
    assert serial.pool.started == 0
    assert pooled.pool.started == 2  # two worker processes for the batch
    assert table(pooled) == table(serial)
    assert list(pooled.files) == list(serial.files)  # walk order, both
    assert pooled.pool.pids() == []  # a batch's workers end with it


def test_closing_the_pool_mid_batch_leaves_no_process(tmp_path: Path) -> None:
    ws = tree(tmp_path / "ws", 80)
    pool = ParsePool(workers=2, min_files=1)
    index = CodeIndex(ws, pool=pool)
    jobs = index._survey()[1]
    batch = pool.run(jobs)
    first = next(batch)
    assert first is not None
    assert first[0] == jobs[0][0]
    workers = [psutil.Process(pid) for pid in pool.pids()]
    assert len(workers) == 2
    assert all(p.is_running() for p in workers)
    pool.close()
    assert pool.pids() == []
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in workers)
    with pytest.raises(ParseWorkersError, match="closed"):
        list(batch)
    with pytest.raises(ParseWorkersError, match="closed"):
        list(pool.run(jobs))


class HeldPool(ParsePool):
    """A real pool whose second batch (the background part of a build) waits for `go`."""

    def __init__(self) -> None:
        super().__init__(workers=2)
        self.go = threading.Event()
        self.batches = 0

    def run(self, jobs: Sequence[Job]) -> Iterator[Result | None]:
        self.batches += 1
        if self.batches == 2:
            assert self.go.wait(60), "the test never let the background part go"
        return super().run(jobs)


def test_a_question_during_the_background_build_answers_near_the_focus_and_says_so(
    tmp_path: Path,
) -> None:
    ws = tree(tmp_path / "ws", 300)
    (ws / "zz").mkdir()
    (ws / "zz" / "main.py").write_text("from lib.tools import shape\n\nshape()\n")
    (ws / "zz" / "side.py").write_text("def beside():\n    pass\n")
    (ws / "lib").mkdir()
    (ws / "lib" / "tools.py").write_text("def shape():\n    return 1\n")
    pool = HeldPool()
    index = CodeIndex(ws, pool=pool)
    index.begin(["zz/main.py"])
    try:
        assert index.coverage() == "indexed 50 of 303 files; the rest is being indexed"
        assert [s.path for s in index.symbol("beside")] == ["zz/side.py"]  # its directory
        assert [s.path for s in index.symbol("shape")] == ["lib/tools.py", "zz/main.py"]
        assert index.symbol("Box296") == []  # not reached yet: the coverage says so
    finally:
        pool.go.set()
    index.wait()
    assert index.coverage() is None
    assert len(index.files) == 303
    assert [s.path for s in index.symbol("Box296")] == ["d29/f296.py"]
    complete = CodeIndex(ws, pool=ParsePool(workers=1))
    complete.refresh()
    assert table(index) == table(complete)


def test_a_second_index_of_the_folder_starts_from_the_first_ones_store(tmp_path: Path) -> None:
    ws = tree(tmp_path / "ws", 40)
    home = tmp_path / "home"
    first, second = CodeIndex(ws, home), CodeIndex(ws, home)
    first.refresh()
    assert second.refresh() == 0  # validated by mtime and size, nothing parsed
    (ws / "d00" / "f000.py").write_text("def changed():\n    pass\n")
    saves = [threading.Thread(target=i.refresh) for i in (first, second)]
    for thread in saves:
        thread.start()
    for thread in saves:
        thread.join()
    third = CodeIndex(ws, home)  # whichever wrote last, the store is whole and current
    assert third.refresh() == 0
    assert table(third) == table(first) == table(second)
