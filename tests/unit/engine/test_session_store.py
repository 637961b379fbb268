"""SessionStore: append-only, one writer, torn and damaged lines survived, lineage and forks."""

from __future__ import annotations

import gc
import logging
import os
import stat
from pathlib import Path

import pytest

from shard_core.engine.session_store import SessionStore
from shard_core.types import (
    MessageDetails,
    MessageEntry,
    TextBlock,
    UserMessage,
)
from shard_core.types.errors import SessionLockedError, SessionNotFoundError


def _say(store: SessionStore, text: str) -> MessageEntry:
    details = MessageDetails(message=UserMessage(content=[TextBlock(text=text)]))
    return store.append(MessageEntry, details)


def _texts(store: SessionStore) -> list[str]:
    return [
        e.details.message.content[0].text  # type: ignore[union-attr]
        for e in store.entries
        if isinstance(e, MessageEntry)
    ]


def _build(folder: Path, n: int) -> Path:
    with SessionStore.create(folder, folder) as store:
        for i in range(n):
            _say(store, f"m{i}")
        return store.path


def test_append_and_reload(tmp_path: Path) -> None:
    path = _build(tmp_path, 3)
    with SessionStore.open(path) as store:
        assert store.report.clean
        assert _texts(store) == ["m0", "m1", "m2"]
        assert [e.type for e in store.branch()] == ["session", "message", "message", "message"]


def test_files_are_private(tmp_path: Path) -> None:
    path = _build(tmp_path / "s", 1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_truncated_at_every_offset_of_the_last_entry(tmp_path: Path) -> None:
    path = _build(tmp_path / "src", 3)
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    for cut in range(last_start, len(data)):
        copy = tmp_path / f"cut{cut}" / path.name
        copy.parent.mkdir()
        copy.write_bytes(data[:cut])
        with SessionStore.open(copy) as store:
            assert _texts(store) == ["m0", "m1"], cut
            assert (store.report.torn is None) == (cut == last_start)
            _say(store, "after")
        with SessionStore.open(copy) as store:
            assert _texts(store) == ["m0", "m1", "after"], cut
            assert store.report.clean


def test_torn_tail_is_set_aside_with_its_byte_range(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _build(tmp_path, 1)
    intact = path.stat().st_size
    with path.open("ab") as f:
        f.write(b'{"v":1,"id":"x","par')
    with caplog.at_level(logging.WARNING), SessionStore.open(path) as store:
        assert store.report.torn is not None
        assert f"bytes {intact}-{intact + 19}" in store.report.torn
    sidecar = path.with_name(f"{path.name}.torn-{intact}")
    assert sidecar.read_bytes() == b'{"v":1,"id":"x","par'
    assert path.stat().st_size == intact
    assert "torn last entry" in caplog.text


def test_garbage_in_the_middle_keeps_everything_else(tmp_path: Path) -> None:
    path = _build(tmp_path, 4)
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(3, b"this is not json\n")
    path.write_bytes(b"".join(lines))
    with SessionStore.open(path) as store:
        assert _texts(store) == ["m0", "m1", "m2", "m3"]
        assert len(store.report.skipped) == 1
        assert store.report.skipped[0].startswith("line 4:")


def test_a_second_writer_gets_a_clear_error(tmp_path: Path) -> None:
    path = _build(tmp_path, 1)
    with SessionStore.open(path):
        with pytest.raises(SessionLockedError) as info:
            SessionStore.open(path)
        assert f"pid {os.getpid()}" in str(info.value)
    with SessionStore.open(path) as again:  # released on close
        assert _texts(again) == ["m0"]


def test_missing_session(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError):
        SessionStore.open(tmp_path / "nope.jsonl")


def test_fork_sees_its_lineage(tmp_path: Path) -> None:
    with SessionStore.create(tmp_path, tmp_path) as parent:
        first = _say(parent, "a")
        _say(parent, "b")
        with SessionStore.create(tmp_path, tmp_path, parent=(parent.session_id, first.id)) as child:
            child.attach_parents([parent])
            _say(child, "c")
            texts = [
                e.details.message.content[0].text  # type: ignore[union-attr]
                for e in child.branch()
                if isinstance(e, MessageEntry)
            ]
            assert texts == ["a", "c"]
            assert child.header is not None
            assert child.header.details.parent_session == parent.session_id


def test_loading_pauses_the_cyclic_gc_and_gives_it_back_as_it_was(tmp_path: Path) -> None:
    with SessionStore.create(tmp_path, tmp_path) as store:
        _say(store, "hello")
        path = store.path
    assert _texts(SessionStore.read(path)) == ["hello"]
    assert gc.isenabled()
    gc.disable()
    try:
        assert _texts(SessionStore.read(path)) == ["hello"]
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_big_logs_entries_are_frozen_after_the_garbage_before_them_is_collected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log of at least FREEZE_BYTES leaves its entries in the permanent generation (the
    collections after the parse do not walk them); cyclic garbage from before is collected
    first, not frozen; a small log freezes nothing."""
    import weakref

    from shard_core.engine import session_store

    small = _build(tmp_path / "small", 3)
    big = _build(tmp_path / "big", 40)
    monkeypatch.setattr(session_store, "FREEZE_BYTES", big.stat().st_size)

    class Node:
        pass

    gc.unfreeze()
    try:
        frozen = gc.get_freeze_count()
        assert _texts(SessionStore.read(small)) == ["m0", "m1", "m2"]
        assert gc.get_freeze_count() == frozen

        cycle = Node()
        cycle.me = cycle  # type: ignore[attr-defined]
        gone = weakref.ref(cycle)
        del cycle
        store = SessionStore.read(big)
        assert gc.get_freeze_count() > frozen
        assert gone() is None  # collected before the freeze
        assert len(_texts(store)) == 40
        assert gc.isenabled()
    finally:
        gc.unfreeze()
