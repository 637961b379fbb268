"""RecallIndex: a cache beside the JSONL — incremental, rebuilt when missing, stale or corrupt."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from shard_core.engine.recall import RecallIndex, cache_path
from shard_core.types import ToolResult
from tests.fixtures.sessions.builders import SessionBuilder, save_entries


def session(path: Path) -> SessionBuilder:
    b = SessionBuilder("s-index")
    b.user("Fix the refresh token bug in src/auth.py")
    b.read("src/auth.py", "def refresh(token): ...")
    b.call("recall", {"query": "refresh"}, ToolResult.ok("#1 user: Fix the refresh token bug"))
    b.bash("pytest -q", "1 passed", 0)
    b.save(path)
    return b


def test_positions_ids_and_labels_follow_the_log(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = session(log)
    with RecallIndex.open(log) as index:
        assert index.count == len(b.entries)
        assert [index.position_of(e.id) for e in b.entries] == list(range(len(b.entries)))
        assert index.labels([1, 2, 3, 5]) == {
            1: ("user", "Fix the refresh token bug in src/auth.py"),
            2: ("assistant → read", 'read {"path": "src/auth.py"}'),
            3: ("tool_result read", "     1\tdef refresh(token): ..."),
            5: ("tool_result recall", ""),
        }
        assert index.read(3) == b.entries[3]
        assert index.touched("src/auth.py", 0, 99) == [3, 2]
        assert index.touched("auth.py", 0, 99) == [3, 2]


def test_the_recall_tools_own_traffic_is_numbered_but_not_searchable(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    session(log)
    with RecallIndex.open(log) as index:
        hits = [pos for pos, _ in index.search('"refresh"', 0, 99, 10)]
    assert sorted(hits) == [1, 3]  # not 4 (the recall call) nor 5 (its result)


def test_the_gates_record_of_a_recall_call_is_not_searchable(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder("s-perm")
    b.user("Where did the kiwifruit go?")
    call = b.new_call("recall", {"query": "kiwifruit"})
    b.say("", [call])
    b.permission(call)
    b.result(call, ToolResult.ok("#1 user: Where did the kiwifruit go?"))
    bash = b.new_call("bash", {"command": "grep -r kiwifruit ."})
    b.say("", [bash])
    b.permission(bash)
    b.result(bash, ToolResult.ok("./notes: kiwifruit\nexit code 0"))
    b.save(log)
    with RecallIndex.open(log) as index:
        hits = sorted(pos for pos, _ in index.search('"kiwifruit"', 0, 99, 10))
    assert [b.entries[p].type for p in hits] == ["message", "message", "permission", "tool_result"]
    assert 3 not in hits  # the recall call's permission record
    assert 6 in hits  # another tool's is searchable


def test_appends_are_indexed_incrementally_and_a_torn_line_waits(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = session(log)
    with RecallIndex.open(log) as index:
        first = index.count
    b.user("now the logout path")
    extra = b.entries[-1].to_json()
    with log.open("a", encoding="utf-8") as f:
        f.write(extra[:20])  # a writer mid-append
    with RecallIndex.open(log) as index:
        assert index.count == first
    with log.open("a", encoding="utf-8") as f:
        f.write(extra[20:] + "\n")
    with RecallIndex.open(log) as index:
        assert index.count == first + 1
        assert index.update() == 0
        assert index.position_of(b.entries[-1].id) == first


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = session(log)
    cache_path(log).write_bytes(b"this is not a database" * 100)
    with RecallIndex.open(log) as index:
        assert index.count == len(b.entries)


def test_a_replaced_or_shrunk_log_is_reindexed(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    session(log)
    RecallIndex.open(log).close()
    other = SessionBuilder("s-other")
    other.user("something else entirely")
    save_entries(other.entries, log)
    with RecallIndex.open(log) as index:
        assert index.count == 2
        assert index.labels([1]) == {1: ("user", "something else entirely")}


def test_lines_split_on_newline_only(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder()
    b.user("next\x85line\u2028and more")
    b.save(log)
    with RecallIndex.open(log) as index:
        assert index.count == 2


def test_damaged_lines_are_skipped_like_the_store_does(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = session(log)
    text = log.read_text(encoding="utf-8").splitlines(keepends=True)
    text.insert(2, '{"v": 1, "broken": true}\n')
    log.write_text("".join(text), encoding="utf-8")
    with RecallIndex.open(log) as index:
        assert index.count == len(b.entries)
        assert index.position_of(b.entries[2].id) == 2


def test_the_cache_is_private(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    session(log)
    RecallIndex.open(log).close()
    assert stat.S_IMODE(os.stat(cache_path(log)).st_mode) == 0o600


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_folder_falls_back_to_memory(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = session(log)
    tmp_path.chmod(0o500)
    try:
        with RecallIndex.open(log) as index:
            assert index.count == len(b.entries)
    finally:
        tmp_path.chmod(0o700)
    assert not cache_path(log).exists()
