"""The store's writer thread and the rewind's writes: a blob is served from memory until it is on
disk and every blob is there after `flush`; a rewind rewrites a file in place (its inode and
mode stay), creates a deleted one, and replaces a hard-linked one by rename so the link's other
name keeps its content."""

from __future__ import annotations

import os
from pathlib import Path

from shard_core.capabilities.checkpoints.rewind import Rewinder
from shard_core.capabilities.checkpoints.store import BlobStore, blob_id
from shard_core.capabilities.checkpoints.tracker import Tracker
from shard_core.capabilities.checkpoints.workspace import Workspace
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import ToolCallEvent, ToolResultEvent
from shard_core.types import (
    MessageDetails,
    MessageEntry,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    UserMessage,
)


def test_blobs_are_served_before_written_and_all_on_disk_after_flush(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "store")
    versions = [f"version {i}\n".encode() * 50 for i in range(20)]
    ids = [blobs.put(v).blob for v in versions]
    assert ids == [blob_id(v) for v in versions]
    assert [blobs.get(b) for b in ids if b] == versions  # from memory or disk, the same bytes
    blobs.flush()
    assert all(blobs.path(b).is_file() for b in ids if b)
    again = BlobStore(tmp_path / "store")  # another process's view: only what is on disk
    assert [again.get(b) for b in ids if b] == versions
    assert blobs.size()[0] == 20


def test_a_put_beyond_the_pending_bound_waits_for_the_writes_before_it(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "store", max_pending_bytes=1000)
    first = blobs.put(b"a" * 800).blob
    assert first is not None
    blobs.put(b"b" * 800)  # 1,600 bytes would wait in memory: the first is written first
    assert blobs.path(first).is_file()


def test_a_rewind_writes_in_place_creates_and_keeps_a_hard_links_other_name(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "plain.txt").write_text("plain before\n")
    os.chmod(ws / "plain.txt", 0o640)
    (ws / "gone.txt").write_text("gone before\n")
    (ws / "linked.txt").write_text("linked before\n")
    os.link(ws / "linked.txt", tmp_path / "other-name.txt")  # outside the workspace
    store = SessionStore.create(tmp_path / "sessions", ws)
    workspace = Workspace(ws, BlobStore(tmp_path / "home"))
    tracker = Tracker(workspace, lambda: store)
    store.append(
        MessageEntry,
        MessageDetails(message=UserMessage(content=[TextBlock(text="change")]), turn_id="t1"),
    )
    call = ToolCallBlock(id="c1", name="bash", input={"command": "change three files"})
    tracker.tool_call(ToolCallEvent(agent_id="a", seq=0, ts=0, turn_id="t1", call=call))
    (ws / "plain.txt").write_text("plain after, longer than before\n")
    (ws / "gone.txt").unlink()
    (tmp_path / "other-name.txt").unlink()
    (ws / "linked.txt").write_text("linked after\n")
    os.link(ws / "linked.txt", tmp_path / "other-name.txt")  # both names: the agent's bytes
    inode = (ws / "plain.txt").stat().st_ino
    done = ToolResultEvent(
        agent_id="a", seq=1, ts=0, turn_id="t1", tool_call_id="c1", name="bash",
        entry_id=store.leaf_id or "", result=ToolResult.ok(""),
    )  # fmt: skip
    tracker.tool_result(done)
    try:
        result = Rewinder(store, workspace).rewind("1", "code")
        assert sorted(result.restored) == ["gone.txt", "linked.txt", "plain.txt"], result.failed
        assert (ws / "plain.txt").read_text() == "plain before\n"
        assert (ws / "plain.txt").stat().st_ino == inode
        assert (ws / "plain.txt").stat().st_mode & 0o777 == 0o640
        assert (ws / "gone.txt").read_text() == "gone before\n"
        assert (ws / "linked.txt").read_text() == "linked before\n"
        assert (tmp_path / "other-name.txt").read_text() == "linked after\n"
        assert (ws / "linked.txt").stat().st_nlink == 1
    finally:
        store.close()
