"""Every bad rewind input gets a clear message; a missing or corrupt blob, a symlink or a file
now outside the workspace is named while the rest is restored; `shard session rewind|diff|
revert` over the log once the agent is gone."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from shard_core.capabilities.checkpoints import Checkpoints, RewindError
from shard_core.capabilities.checkpoints.store import BlobStore
from shard_core.types import CheckpointEntry, FilesCheckpoint
from shard_kernel.cli import main
from tests.unit.capabilities.checkpoints.conftest import hashes, scripted_agent, write_script

START = {"a.py": "a = 1\n", "b.py": "b = 2\n", "c.py": "c = 3\n", "src/d.py": "d = 4\n"}


def _edit(path: str, old: str, new: str) -> dict[str, object]:
    return {"name": "edit", "input": {"path": path, "old_string": old, "new_string": new}}


async def _session(tmp_path: Path) -> tuple[Path, Path]:
    """A closed session that edited four files and wrote a binary one; (workspace, log)."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    for rel, text in START.items():
        (ws / rel).write_text(text)
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    turns = [
        [_edit("a.py", "1", "10"), _edit("b.py", "2", "20"), _edit("c.py", "3", "30"),
         _edit("src/d.py", "4", "40"),
         {"name": "bash", "input": {"command": "printf '\\000\\377new' > blob.bin"}}],
    ]  # fmt: skip
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", turns))
    try:
        await agent.run("edit four")
        return ws, agent.session.store.path
    finally:
        await agent.close()


def _offline(tmp_path: Path, log: Path) -> Checkpoints:
    from shard_core.engine.session_store import SessionStore

    return Checkpoints.offline(SessionStore.open(log), tmp_path / "home")


def _befores(log: Path) -> dict[str, str]:
    from shard_core.engine.session_store import SessionStore

    store = SessionStore.read(log)
    return {
        c.path: c.before
        for e in store.entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, FilesCheckpoint)
        for c in e.details.changes
        if c.before
    }


async def test_bad_targets_and_damaged_store(tmp_path: Path) -> None:
    ws, log = await _session(tmp_path)
    service = _offline(tmp_path, log)
    try:
        for target, message in [
            ("0", "cannot rewind past the session start"),
            ("7", "unknown turn 7: this session has turns 1 to 1"),
            ("feedfacefeedface", "unknown entry 'feedfacefeedface'"),
            (service.store.entries[0].id, "cannot rewind past the session start"),
        ]:
            with pytest.raises(RewindError, match=message):
                service.rewind(target, "code")
        with pytest.raises(RewindError, match="nothing to undo"):
            service.undo()

        blobs = BlobStore(tmp_path / "home" / "checkpoints")
        befores = _befores(log)
        blobs.path(befores["a.py"]).unlink()  # missing
        blobs.path(befores["b.py"]).write_bytes(b"Zgarbage")  # corrupt
        (ws / "c.py").unlink()
        (ws / "c.py").symlink_to(ws / "a.py")  # a symlink now
        shutil.move(ws / "src", tmp_path / "elsewhere")
        (ws / "src").symlink_to(tmp_path / "elsewhere")  # its folder leads outside
        before = hashes(ws)

        out = service.rewind("1", "code")
        assert out.result is not None
        failed = "\n".join(out.result.failed)
        assert f"a.py: checkpoint blob {befores['a.py'][:12]} is missing from the store" in failed
        assert f"b.py: checkpoint blob {befores['b.py'][:12]} is corrupt" in failed
        assert "c.py: a symlink now; not followed" in failed
        assert "src/d.py: outside the workspace now" in failed
        assert out.result.restored == ["blob.bin"]  # the rest is restored, and it says so
        assert (ws / "blob.bin").read_bytes() == b"\x00\x01\x02binary"
        assert "in part" in out.text
        assert hashes(ws)["a.py"] == before["a.py"]
        assert (tmp_path / "elsewhere" / "d.py").read_text() == "d = 40\n"

        review = service.review(1)
        assert "blob.bin** (modified): binary file: 9 → 5 bytes" in review.text
        with pytest.raises(RewindError, match="binary file"):
            service.revert("blob.bin", turn=1, hunk=1)
    finally:
        service.store.close()


async def test_the_cli_lists_rewinds_reviews_and_reverts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, log = await _session(tmp_path)
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    assert main(["session", "rewind", str(log)]) == 0
    assert "| 1 | edit four | 5 |" in capsys.readouterr().out
    assert main(["session", "diff", str(log), "--turn", "1"]) == 0
    assert "**a.py** (modified, +1 -1)" in capsys.readouterr().out
    assert main(["session", "diff", str(log), "--json"]) == 0
    assert '"kind": "diff"' in capsys.readouterr().out
    assert main(["session", "revert", str(log), "a.py", "--turn", "1", "--hunk", "1"]) == 0
    assert (ws / "a.py").read_text() == "a = 1\n"
    (ws / "b.py").write_text("b = 20  # mine\n")
    assert main(["session", "rewind", str(log), "--turn", "1", "--code"]) == 1  # refused
    assert "Three versions" in capsys.readouterr().out
    assert (ws / "b.py").read_text() == "b = 20  # mine\n"
    assert main(["session", "rewind", str(log), "--turn", "1", "--code", "--keep"]) == 0
    assert (ws / "c.py").read_text() == "c = 3\n"
    assert (ws / "b.py").read_text() == "b = 20  # mine\n"
    assert main(["session", "rewind", str(log), "--turn", "9"]) == 2
    assert "unknown turn 9" in capsys.readouterr().err
    assert main(["session", "rewind", str(log), "--undo"]) == 0
    assert (ws / "c.py").read_text() == "c = 30\n"


async def test_a_file_too_big_to_keep_is_named_and_the_rest_restored(tmp_path: Path) -> None:
    from shard_core.engine.config import CheckpointsConfig, ShardConfig
    from shard_core.engine.ui import UiProxy
    from shard_core.sdk import create_agent

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("a = 1\n")
    (ws / "big.txt").write_text("x" * 2000 + "\n")
    turns = [[_edit("a.py", "1", "10"), _edit("big.txt", "x\n", "y\n")]]
    told: list[str] = []

    class Surface(UiProxy):  # what a person is shown: the notifications
        async def notify(self, title: str, message: str = "") -> None:
            told.append(f"{title}: {message}")

    agent = await create_agent(
        cwd=ws,
        model=f"scripted/{write_script(tmp_path / 's.json', turns)}",
        home=tmp_path / "home",
        config=ShardConfig(checkpoints=CheckpointsConfig(max_file_bytes=1000)),
        env={"HOME": str(tmp_path / "user")},
        allow=["Edit(**)"],  # NotebookEdit rules parse only once the notebook tools are declared
        extension_ui=Surface(),
    )
    try:
        await agent.run("edit both")
        await asyncio.sleep(0)  # the notification's task
        assert told == [
            "Checkpoints: big.txt is too big to keep (2,001 bytes > 1,000): a rewind cannot put "
            "this version back"
        ]
        assert agent.checkpoints is not None
        service = agent.checkpoints.checkpoints()
        review = service.review(1)
        assert "**big.txt** (modified): content not kept (too big or unreadable): no diff" in (
            review.text
        )
        out = service.rewind("1", "code")
        assert out.result is not None
        assert out.result.restored == ["a.py"]
        assert out.result.failed == [
            "big.txt: its earlier content was not kept (too big to keep (2,001 bytes > 1,000))"
        ]
        assert "in part" in out.text
        assert (ws / "a.py").read_text() == "a = 1\n"
        assert (ws / "big.txt").read_text().endswith("y\n")  # left as it is, and said so
    finally:
        await agent.close()


async def test_more_bad_requests_are_clear_and_change_nothing(tmp_path: Path) -> None:
    ws, log = await _session(tmp_path)
    service = _offline(tmp_path, log)
    try:
        before = hashes(ws)
        usage = [
            (lambda: service.changes_command(["two"]), "usage: /changes [TURN]"),
            (lambda: service.command(["1", "--sideways"]), "/rewind: unrecognized arguments"),
            (lambda: service.revert("nope.py", turn=1), "nope.py was not changed there"),
            (lambda: service.revert("a.py", turn=1, hunk=3), "a.py has hunks 1 to 1, not 3"),
            (lambda: service.revert("a.py", turn=1, cell="c1"), "not a notebook with cell ids"),
            (lambda: service.turn_number(service.store.branch()[-1].id), "does not start a turn"),
        ]
        for call, message in usage:
            with pytest.raises(RewindError, match=re.escape(message)):
                call()
        (ws / "a.py").write_text("a = 10  # a person's line\n")
        with pytest.raises(RewindError, match=r"hunk 1 of a\.py no longer applies"):
            service.revert("a.py", turn=1, hunk=1)
        busy = Checkpoints(service.store, service.workspace, running=lambda: True)
        with pytest.raises(RewindError, match="a turn is running: stop it"):
            busy.rewind("1")

        # a person's edit waits for a choice: nothing changes, even what could be restored,
        # and what could not is named beside the three versions
        blobs = BlobStore(tmp_path / "home" / "checkpoints")
        blobs.path(_befores(log)["b.py"]).unlink()
        edited = hashes(ws)
        refused = service.rewind("1", "code")
        assert refused.result is not None
        assert not refused.result.applied
        assert hashes(ws) == edited
        assert "Rewind refused: nothing was changed" in refused.text
        assert "Also not restorable: b.py: checkpoint blob" in refused.text
        assert edited != before

        moved = service.rewind("1", "conversation")  # the turn leaves the branch
        assert moved.result is not None
        turn_entry = service.store.get(moved.result.to_entry_id)
        assert turn_entry is not None
        with pytest.raises(RewindError, match="not on the conversation's current branch"):
            service.rewind(turn_entry.id, "code")
    finally:
        service.store.close()


async def test_an_entry_id_of_digits_only_names_that_entry_not_a_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """About one id in 1,800 is 16 decimal digits: it still names its entry."""
    from itertools import count

    from shard_core.capabilities.checkpoints.timeline import turns
    from shard_core.engine import session_store

    numbers = count(4372278011220501)
    monkeypatch.setattr(session_store, "new_id", lambda: str(next(numbers)))
    _, log = await _session(tmp_path)
    service = _offline(tmp_path, log)
    try:
        branch = service.store.branch()
        assert all(e.id.isdigit() for e in branch)
        [turn] = turns(branch)
        assert service.turn_number(turn.entry.id) == 1
        with pytest.raises(RewindError, match="does not start a turn"):
            service.turn_number(branch[-1].id)
        assert service.turn_number("1") == 1  # a short number is still a turn's
    finally:
        service.store.close()
