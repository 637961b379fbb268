"""A scripted session edits three files, creates one, deletes one, rewrites a fourth with bash
and edits two notebook cells; rewinding to before each turn restores every byte (by hash), in
a plain folder and in a git repository whose index, HEAD and stash stay untouched; the rewind
itself is undone."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from shard_core.capabilities.checkpoints import Checkpoints, Outcome
from shard_core.protocol.events import Event, RewindEvent
from shard_core.types import CheckpointEntry, FilesCheckpoint
from tests.unit.capabilities.checkpoints.conftest import (
    git,
    hashes,
    make_notebook,
    scripted_agent,
    write_script,
)


def applied(out: Outcome) -> bool:
    return out.result is not None and out.result.applied


PROMPTS = ["edit three files", "create one, delete one", "rewrite with bash", "edit two cells"]


def _turns() -> list[list[dict[str, Any]]]:
    def edit(path: str, old: str, new: str) -> dict[str, Any]:
        return {"name": "edit", "input": {"path": path, "old_string": old, "new_string": new}}

    return [
        [edit("a.py", "a = 1", "a = 10"), edit("b.py", "b = 2", "b = 20"),
         edit("src/c.py", "c = 3", "c = 30")],
        [{"name": "write", "input": {"path": "new.py", "content": "print('new')\n"}},
         {"name": "bash", "input": {"command": "rm d.txt"}}],
        [{"name": "bash", "input": {"command": "printf 'rewritten\\n' > e.txt"}}],
        [{"name": "notebook_edit", "input": {"path": "nb.ipynb", "operations": [
            {"op": "replace", "id": "cell-0", "source": "x = 100"},
            {"op": "replace", "id": "cell-2", "source": "z = 300"},
        ]}}],
    ]  # fmt: skip


def _workspace(ws: Path) -> None:
    (ws / "src").mkdir(parents=True)
    (ws / "a.py").write_text("a = 1\n")
    (ws / "b.py").write_text("b = 2\n")
    (ws / "src" / "c.py").write_text("c = 3\n")
    (ws / "d.txt").write_text("to be deleted\n")
    (ws / "e.txt").write_text("original\n")
    (ws / "f.bin").write_bytes(bytes(range(256)))  # untouched binary: must stay as it is
    make_notebook(ws / "nb.ipynb", ["x = 1", "y = 2", "z = 3"])


def _git_state(ws: Path) -> tuple[str, str, str, str]:
    index = hashlib.sha256((ws / ".git" / "index").read_bytes()).hexdigest()
    return (
        git(ws, "rev-parse", "HEAD"),
        index,
        git(ws, "stash", "list"),
        git(ws, "log", "--oneline"),
    )


@pytest.mark.parametrize("repo", [False, True], ids=["plain-folder", "git-repo"])
async def test_rewind_to_before_each_turn_restores_every_byte(tmp_path: Path, repo: bool) -> None:
    ws = tmp_path / "ws"
    _workspace(ws)
    git_before = None
    if repo:
        (ws / ".gitignore").write_text("*.log\n")
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-q", "-m", "start")
        git_before = _git_state(ws)
    (ws / "ignored.log").write_text("ignored by .gitignore when in a repo\n")
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", _turns()))
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    snapshots: list[dict[str, str]] = []
    try:
        for prompt in PROMPTS:
            snapshots.append(hashes(ws))
            end = await agent.run(prompt)
            assert end.reason == "completed", end
        final = hashes(ws)
        assert (ws / "new.py").exists()
        assert not (ws / "d.txt").exists()
        assert (ws / "e.txt").read_text() == "rewritten\n"
        logged = [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, FilesCheckpoint)
        ]
        paths = sorted(c.path for cp in logged for c in cp.changes)
        assert paths == ["a.py", "b.py", "d.txt", "e.txt", "nb.ipynb", "new.py", "src/c.py"]
        assert all(cp.source_entry_id for cp in logged)
        deleted = next(c for cp in logged for c in cp.changes if c.path == "d.txt")
        assert (deleted.existed_before, deleted.exists_after) == (True, False)
        assert deleted.before
        created = next(c for cp in logged for c in cp.changes if c.path == "new.py")
        assert (created.existed_before, created.exists_after) == (False, True)
        assert created.after

        assert agent.checkpoints is not None
        service: Checkpoints = agent.checkpoints.checkpoints()
        for turn in range(len(PROMPTS), 0, -1):
            out = service.rewind(str(turn), "code")
            assert applied(out), out.text
            assert hashes(ws) == snapshots[turn - 1], f"before turn {turn}: {out.text}"
        rewinds = [e for e in seen if isinstance(e, RewindEvent)]
        assert [e.scope for e in rewinds] == ["code"] * len(PROMPTS)

        undone = service.undo()
        assert applied(undone), undone.text
        assert hashes(ws) == snapshots[1], undone.text  # as before the last rewind (to turn 1)
        for turn in range(len(PROMPTS), 0, -1):  # and again, through the undo's checkpoint
            service.rewind(str(turn), "code")
            assert hashes(ws) == snapshots[turn - 1]
        assert final != snapshots[0]
        if repo:
            assert _git_state(ws) == git_before
    finally:
        await agent.close()
