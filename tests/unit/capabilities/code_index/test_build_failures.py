"""A background build that fails: the tools say so (not "being indexed" for ever), the next
question tries again once, a file asked about by path is still indexed, and `/index refresh`
clears it. (Killed halfway: tests/integration/test_code_index_resume.py.)"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path

from shard_core.capabilities.code_index import CodeIndex
from shard_core.capabilities.code_index.lsp import Diagnostics
from shard_core.capabilities.code_index.pool import Job, ParsePool, Result
from shard_core.capabilities.code_index.provider import CodeIntelligence
from shard_core.capabilities.code_index.tools import CodeOutlineTool, CodeSymbolTool
from shard_core.contracts import ToolContext
from tests.unit.capabilities.code_index.test_pool_and_lazy import tree


class KillingPool(ParsePool):
    """A real pool of two worker processes; while the `kills` first big batches run, one of
    their workers is SIGKILLed at the batch's first result (as the OOM killer would)."""

    def __init__(self, kills: int) -> None:
        super().__init__(workers=2)
        self.kills = kills

    def run(self, jobs: Sequence[Job]) -> Iterator[Result | None]:
        for n, result in enumerate(super().run(jobs)):
            if n == 0 and self.kills and len(jobs) >= self.min_files:
                self.kills -= 1
                os.kill(self.pids()[0], signal.SIGKILL)
            yield result


def _ctx(root: Path) -> ToolContext:
    return ToolContext(cwd=root, roots=[root], agent_id="a", session_id="s", call_id="c")


async def test_a_build_that_fails_says_so_tries_once_more_and_outlines_still_answer(
    tmp_path: Path,
) -> None:
    ws = tree(tmp_path / "ws", 600)
    index = CodeIndex(ws, pool=KillingPool(kills=2))
    code = CodeIntelligence(index, Diagnostics(index.root, None))
    symbol, ctx = CodeSymbolTool(code), _ctx(index.root)
    stopped = "indexing stopped (a parse worker exited (-9))"

    index.begin()  # a first question's: the files nearest the focus, then the rest in workers
    index.wait()
    covered = len(index.files)
    assert 50 <= covered < 600  # the files nearest the focus, and what came before the kill
    assert index.coverage() == (
        f"{stopped}: the answers cover the {covered} files indexed before that; the next "
        "question tries again"
    )
    await symbol.execute({"name": "Box596"}, ctx)  # that question: the one more build begins
    index.wait()
    assert index.failure == "a parse worker exited (-9)"  # killed again
    covered = len(index.files)
    answer = await symbol.execute({"name": "Box596"}, ctx)  # and no third build
    assert (index.pool.kills, len(index.files)) == (0, covered)
    assert answer.text == (
        f"no definition of or reference to 'Box596' in the index ({stopped}: the answers cover "
        f"the {covered} files indexed before that; a file asked about by path is still "
        "indexed, and `/index refresh` retries)"
    )  # (d59/f596.py is among the last files of the walk: neither build reached it)
    assert index.pool.pids() == []  # no worker left behind by either batch
    outline = await CodeOutlineTool(code).execute({"path": "d59/f596.py"}, ctx)
    assert not outline.is_error
    assert "class Box596" in outline.text

    index.refresh()  # the pool kills no more
    third = await symbol.execute({"name": "Box596"}, ctx)
    assert third.text.startswith("Box596: 1 definition, referenced in 0 files\n")
    assert "indexing stopped" not in third.text
    assert len(index.files) == 600
