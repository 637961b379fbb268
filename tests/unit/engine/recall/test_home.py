"""HomeIndex: one cache over every session log in a folder — ranked search across sessions,
kept up to date from each log's indexed byte offset, rebuilt when unusable."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from shard_core.engine.recall import HomeHit, HomeIndex, search_home
from shard_core.engine.recall.home import HOME_CACHE
from shard_core.types import ToolResult
from tests.fixtures.sessions.builders import SessionBuilder, save_entries


def fill(folder: Path) -> dict[str, SessionBuilder]:
    a = SessionBuilder("s-a")
    a.user("Fix the refresh token rotation in src/auth.py")
    a.read("src/auth.py", "def rotate(token): ...")
    a.call("recall", {"query": "refresh"}, ToolResult.ok("#1 user: Fix the refresh token"))
    a.save(folder / "s-a.jsonl")
    b = SessionBuilder("s-b")
    b.user("Why does the gateway drop websocket frames?")
    b.bash("pytest -q tests/test_gateway.py", "1 failed: frames dropped", 1)
    b.save(folder / "s-b.jsonl")
    return {"s-a": a, "s-b": b}


def where(hits: list[HomeHit]) -> list[tuple[str, int, str]]:
    return [(h.session, h.pos, h.entry_id) for h in hits]


def test_one_query_searches_every_session_in_the_folder(tmp_path: Path) -> None:
    logs = fill(tmp_path)
    hits = search_home(tmp_path, "refresh tokens")
    a = logs["s-a"].entries
    assert where(hits) == [("s-a", 1, a[1].id)]  # stemmed; not the recall tool's own traffic
    assert hits[0].label == "user"
    assert hits[0].snippet == "Fix the [refresh] [token] rotation in src/auth.py"
    gateway = search_home(tmp_path, "gateway")
    assert sorted(where(gateway)) == [
        ("s-b", 1, logs["s-b"].entries[1].id),
        ("s-b", 2, logs["s-b"].entries[2].id),
    ]
    assert search_home(tmp_path, "kubernetes") == []
    assert search_home(tmp_path, "  ") == []  # no searchable words


def test_results_are_ranked_and_capped_deterministically(tmp_path: Path) -> None:
    for i in range(4):
        b = SessionBuilder(f"s-{i}")
        b.user("cache " * (i + 1) + "miss")
        b.save(tmp_path / f"s-{i}.jsonl")
    hits = search_home(tmp_path, "cache", limit=3)
    assert len(hits) == 3
    assert [h.rank for h in hits] == sorted(h.rank for h in hits)
    assert where(hits) == where(search_home(tmp_path, "cache", limit=3))


def test_appends_are_indexed_from_the_last_offset(tmp_path: Path) -> None:
    logs = fill(tmp_path)
    with HomeIndex.open(tmp_path) as index:
        assert index.update() == 8  # searchable: 2 headers, 4 messages, 2 results (not recall)
        assert index.update() == 0
        b = logs["s-b"]
        b.user("and the gateway heartbeat too")
        extra = b.entries[-1].to_json()
        with (tmp_path / "s-b.jsonl").open("a", encoding="utf-8") as f:
            f.write(extra[:15])  # a writer mid-append: the torn line waits
        assert index.update() == 0
        with (tmp_path / "s-b.jsonl").open("a", encoding="utf-8") as f:
            f.write(extra[15:] + "\n")
        assert index.update() == 1
        assert where(index.search("heartbeat")) == [("s-b", len(b.entries) - 1, b.entries[-1].id)]


def test_replaced_removed_and_new_logs_are_followed(tmp_path: Path) -> None:
    fill(tmp_path)
    search_home(tmp_path, "gateway")
    other = SessionBuilder("s-b")
    other.user("something else entirely")
    save_entries(other.entries, tmp_path / "s-b.jsonl")  # rewritten: smaller, new first line
    (tmp_path / "s-a.jsonl").unlink()
    c = SessionBuilder("s-c")
    c.user("the gateway again")
    c.save(tmp_path / "s-c.jsonl")
    assert where(search_home(tmp_path, "gateway")) == [("s-c", 1, c.entries[1].id)]
    assert where(search_home(tmp_path, "entirely")) == [("s-b", 1, other.entries[1].id)]
    assert search_home(tmp_path, "refresh") == []


def test_logs_are_found_where_the_session_store_keeps_them(tmp_path: Path) -> None:
    for folder, name in (("sessions", "s-1"), ("agents/a-7/sessions", "s-2"), ("notes", "s-3")):
        b = SessionBuilder(name)
        b.user("the gateway again")
        b.save(tmp_path / folder / f"{name}.jsonl")
    hits = search_home(tmp_path, "gateway")
    assert sorted((h.session, h.path) for h in hits) == [
        ("s-1", "sessions/s-1.jsonl"),
        ("s-2", "agents/a-7/sessions/s-2.jsonl"),
    ]  # not notes/: no session store writes there


def test_a_corrupt_cache_is_rebuilt_and_the_cache_is_private(tmp_path: Path) -> None:
    fill(tmp_path)
    (tmp_path / HOME_CACHE).write_bytes(b"not a database" * 100)
    assert len(search_home(tmp_path, "gateway")) == 2
    assert stat.S_IMODE(os.stat(tmp_path / HOME_CACHE).st_mode) == 0o600


def test_damaged_lines_are_skipped_and_later_ones_keep_their_position(tmp_path: Path) -> None:
    b = SessionBuilder("s-d")
    b.user("first words")
    b.user("second gateway words")
    b.save(tmp_path / "s-d.jsonl")
    lines = (tmp_path / "s-d.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(1, '{"v": 1, "broken": true}\n')
    (tmp_path / "s-d.jsonl").write_text("".join(lines), encoding="utf-8")
    assert where(search_home(tmp_path, "gateway")) == [("s-d", 2, b.entries[2].id)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_folder_falls_back_to_memory(tmp_path: Path) -> None:
    fill(tmp_path)
    tmp_path.chmod(0o500)
    try:
        assert len(search_home(tmp_path, "gateway")) == 2
    finally:
        tmp_path.chmod(0o700)
    assert not (tmp_path / HOME_CACHE).exists()


def test_more_matches_than_the_cap_ranks_only_the_newest_and_says_so(tmp_path: Path) -> None:
    old, new = SessionBuilder("s-z-old"), SessionBuilder("s-a-new")
    for i in range(4):
        old.user("cache " * 9 + f"miss {i}")  # the better bm25 matches, but older
        new.user(f"cache miss {i} " + "filler " * 9)
    old.save(tmp_path / "s-z-old.jsonl")
    new.save(tmp_path / "s-a-new.jsonl")
    os.utime(tmp_path / "s-z-old.jsonl", (1_000_000, 1_000_000))  # indexed first despite its name
    everything = search_home(tmp_path, "cache", limit=3)
    assert (everything.matches, everything.ranked, everything.note) == (8, 8, "")
    assert {h.session for h in everything} == {"s-z-old"}
    capped = search_home(tmp_path, "cache", limit=3, cap=5)
    assert (capped.matches, capped.ranked) == (8, 5)
    assert capped.note == "ranked the 5 newest of 8 matches"
    # the five newest: the old log's last message (indexed first, it ranks best) and the new
    # log's four; the old log's three other, better matches were not ranked
    assert [(h.session, h.pos) for h in capped] == [("s-z-old", 4), ("s-a-new", 1), ("s-a-new", 2)]
    appended = SessionBuilder("s-z-old")
    appended.user("cache " * 5 + "appended")
    with (tmp_path / "s-z-old.jsonl").open("a", encoding="utf-8") as f:
        f.write(appended.entries[-1].to_json() + "\n")  # appends are the newest
    latest = search_home(tmp_path, "cache", limit=1, cap=1)
    assert (latest.note, where(latest)) == (
        "ranked the 1 newest of 9 matches",
        [("s-z-old", 5, appended.entries[-1].id)],
    )
