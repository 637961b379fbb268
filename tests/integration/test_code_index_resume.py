"""A code index build killed halfway (SIGKILL, no shutdown) leaves the store it wrote as it went:
the next process parses only what the first had not saved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.pool import ParsePool
from shard_core.capabilities.code_index.store import index_path

KILLED_HALFWAY = """
import os, signal, sys
from pathlib import Path
from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.pool import ParsePool

class DyingPool(ParsePool):
    '''A real in-process pool whose process is SIGKILLed after its 60th file.'''

    def run(self, jobs):
        for n, result in enumerate(super().run(jobs), 1):
            yield result
            if n == 60:
                os.kill(os.getpid(), signal.SIGKILL)

ws, home = Path(sys.argv[1]), Path(sys.argv[2])
CodeIndex(ws, home, pool=DyingPool(workers=1), save_every=25).refresh()
"""


def test_a_build_killed_halfway_resumes_from_what_it_saved(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    for i in range(300):
        path = ws / f"d{i // 10:02d}" / f"f{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"class Box{i}:\n    def open(self) -> int:\n        return {i}\n")
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_HALFWAY, str(ws), str(home)], timeout=120, check=False
    )
    assert killed.returncode == -9
    saved = json.loads(index_path(home, Path(ws).resolve()).read_text())["files"]
    # written at 25 and 50 files (and every 30 s, should parsing 60 files ever take that long):
    # what came after the last write is lost, nothing before it
    assert 50 <= len(saved) <= 60
    again = CodeIndex(ws, home, pool=ParsePool(workers=1))
    assert again.refresh() == 300 - len(saved)  # the saved are current by their stat
    assert len(again.files) == 300
