"""A person's edit after the agent's is never overwritten without a choice (the three versions
are shown); a notebook is restored cell by cell; review shows per-file and per-cell diffs;
a hunk, a cell and a whole file can be reverted; the conversation can be rewound and undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat

from shard_core.capabilities.checkpoints import Checkpoints
from shard_core.types import DiffDescriptor, MessageEntry
from shard_kernel.slash import run_slash
from tests.unit.capabilities.checkpoints.conftest import (
    hashes,
    make_notebook,
    scripted_agent,
    write_script,
)

LINES = "".join(f"line {i}\n" for i in range(1, 31))


def _edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "edit", "input": {"path": path, "old_string": old, "new_string": new}}


def _cell_edit(*pairs: tuple[str, str]) -> dict[str, Any]:
    ops = [{"op": "replace", "id": cid, "source": src} for cid, src in pairs]
    return {"name": "notebook_edit", "input": {"path": "nb.ipynb", "operations": ops}}


def _service(agent: Any) -> Checkpoints:
    assert agent.checkpoints is not None
    return agent.checkpoints.checkpoints()


async def test_a_persons_edit_is_refused_with_three_versions_then_chosen(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("a = 1\n")
    (ws / "b.py").write_text("b = 2\n")
    make_notebook(ws / "nb.ipynb", ["x = 1", "y = 2", "z = 3"])
    turns = [[_edit("a.py", "a = 1", "a = 10"), _edit("b.py", "b = 2", "b = 20"),
              _cell_edit(("cell-0", "x = 100"))]]  # fmt: skip
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", turns))
    try:
        start = hashes(ws)
        await agent.run("edit")
        (ws / "a.py").write_text("a = 10\nmine = True\n")  # a person's edit after the agent's
        nb = nbformat.read(str(ws / "nb.ipynb"), as_version=4)
        nb.cells[1].source = "y = 'a person typed this'"  # another cell than the agent's
        nbformat.write(nb, str(ws / "nb.ipynb"))
        edited = hashes(ws)

        refused = _service(agent).rewind("1", "code")
        assert refused.result is not None
        assert not refused.result.applied
        assert hashes(ws) == edited  # nothing at all changed
        assert "Rewind refused: nothing was changed" in refused.text
        assert "Three versions" in refused.text
        assert "+mine = True" in refused.text  # what the person changed since the agent
        assert "-a = 10" in refused.text  # what the rewind would do
        assert "--force" in refused.text
        assert "--keep" in refused.text
        text = await run_slash(None, agent, "/rewind 1 --code")  # type: ignore[arg-type]
        assert "Rewind refused" in text

        kept = _service(agent).rewind("1", "code", "keep")
        assert kept.result is not None
        assert kept.result.kept == ["a.py"]
        assert (ws / "a.py").read_text() == "a = 10\nmine = True\n"
        assert (ws / "b.py").read_text() == "b = 2\n"
        restored = nbformat.read(str(ws / "nb.ipynb"), as_version=4)
        assert [c.source for c in restored.cells] == ["x = 1", "y = 'a person typed this'", "z = 3"]
        assert "restored cell by cell; kept your edits to 1 cell(s)" in kept.text

        _service(agent).undo()
        assert hashes(ws) == edited
        forced = _service(agent).rewind("1", "code", "force")
        assert forced.result is not None
        assert forced.result.restored
        assert (ws / "a.py").read_text() == "a = 1\n"
        assert hashes(ws)["b.py"] == start["b.py"]
    finally:
        await agent.close()


async def test_review_per_cell_and_hunk_and_cell_revert(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "long.txt").write_text(LINES)
    make_notebook(ws / "nb.ipynb", ["x = 1", "y = 2", "z = 3"])
    turns = [
        [_edit("long.txt", "line 2\n", "line two\n"), _edit("long.txt", "line 25\n", "line 25!\n")],
        [_cell_edit(("cell-0", "x = 100"), ("cell-2", "z = 300"))],
    ]
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", turns))
    try:
        await agent.run("edit long")
        await agent.run("edit cells")
        service = _service(agent)

        first = service.review(1)
        assert "**long.txt** (modified, +2 -2)" in first.text
        assert "(hunk 2)" in first.text
        second = service.review(2)
        assert '"cells"' not in second.text  # cells, not the notebook's JSON
        assert "- cell `cell-0` (code, modified)" in second.text
        assert "-x = 1" in second.text
        assert "+z = 300" in second.text
        labels = [d.path for d in second.render or [] if isinstance(d, DiffDescriptor)]
        assert labels == ["nb.ipynb · cell cell-0 (code)", "nb.ipynb · cell cell-2 (code)"]
        assert "cell `cell-0`" in await run_slash(None, agent, "/changes 2")  # type: ignore[arg-type]

        reverted = service.revert("long.txt", turn=1, hunk=2)
        assert reverted.result is not None
        assert reverted.result.restored == ["long.txt"]
        assert (ws / "long.txt").read_text() == LINES.replace("line 2\n", "line two\n", 1)

        service.revert("nb.ipynb", turn=2, cell="cell-2")
        cells = nbformat.read(str(ws / "nb.ipynb"), as_version=4).cells
        assert [c.source for c in cells] == ["x = 100", "y = 2", "z = 3"]

        service.undo()  # the cell revert, undone
        cells = nbformat.read(str(ws / "nb.ipynb"), as_version=4).cells
        assert [c.source for c in cells] == ["x = 100", "y = 2", "z = 300"]

        service.revert("long.txt")  # the whole file, as it was before the session
        assert (ws / "long.txt").read_text() == LINES
    finally:
        await agent.close()


async def test_conversation_rewind_moves_the_branch_and_is_undone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("a = 1\n")
    turns = [[_edit("a.py", "a = 1", "a = 2")], [_edit("a.py", "a = 2", "a = 3")]]
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", turns))
    try:
        await agent.run("first")
        await agent.run("second")
        store = agent.session.store
        leaf = store.leaf_id

        def prompts() -> list[str]:
            return [
                str(e.details.message.content[0].model_dump().get("text"))
                for e in store.branch()
                if isinstance(e, MessageEntry) and e.details.message.role == "user"
            ]

        out = _service(agent).rewind("2", "both")
        assert out.result is not None
        assert out.result.restored == ["a.py"]
        assert (ws / "a.py").read_text() == "a = 2\n"
        assert prompts() == ["first"]  # the next request sees the conversation as it was
        assert "turn 2" not in _service(agent).turns_table()

        _service(agent).undo()
        assert prompts() == ["first", "second"]
        assert (ws / "a.py").read_text() == "a = 3\n"
        assert store.branch()[-2].id == leaf

        convo = _service(agent).rewind("2", "conversation")
        assert convo.result is not None
        assert convo.result.restored == []
        assert (ws / "a.py").read_text() == "a = 3\n"  # files untouched
        assert prompts() == ["first"]
        logged = [json.loads(line) for line in store.path.read_text().splitlines()]
        assert sum(1 for e in logged if e["details"].get("kind") == "files") >= 4
    finally:
        await agent.close()
