"""Recall over a lineage: facts from before a compaction, scopes, forks, paging, expand."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shard_core.engine.recall import (
    Lineage,
    RecallRequest,
    directory_resolver,
    lineage_paths,
    recall,
)
from shard_core.types import CompactionEntry, SessionEntry
from shard_core.types.errors import SessionNotFoundError
from tests.fixtures.sessions.builders import SessionBuilder
from tests.fixtures.sessions.golden import compact
from tests.fixtures.sessions.realistic import exploration_finish, exploration_start

FILLER = " lorem ipsum" * 300 + " "
FACT = "the staging database password rotates every 90 days via vault path secret/db/staging"


def compacted(path: Path) -> SessionBuilder:
    b = SessionBuilder("s-main")
    b.user("Where do staging credentials come from?")
    b.bash("vault kv get secret/db/staging", FILLER + FACT + FILLER, 0)
    exploration_start(b)
    compact(b, 0)
    exploration_finish(b)
    compact(b, 1)
    return b.save(path) and b


def ask(paths: list[Path], **request: object) -> tuple[str, tuple[int, ...], str | None]:
    with Lineage.open(paths) as lineage:
        answer = recall(lineage, RecallRequest(**request))  # type: ignore[arg-type]
    assert not answer.error, answer.text
    return answer.text, answer.indices, answer.next_cursor


def test_a_fact_from_before_compaction_is_found_and_expanded_whole(tmp_path: Path) -> None:
    log = tmp_path / "s-main.jsonl"
    b = compacted(log)
    index = next(i for i, e in enumerate(b.entries) if FACT in e.to_json())
    summaries = [e.details.summary for e in b.entries if isinstance(e, CompactionEntry)]
    assert all("90 days" not in s for s in summaries)  # only recall still knows it

    text, indices, _ = ask([log], query="staging password rotation days")
    assert indices[0] == index
    assert f"#{index} tool_result bash exit 0: …" in text
    assert "[staging] database [password] [rotates]" in text

    text, indices, _ = ask([log], expand=[index])
    assert indices == (index,)
    head, body = text.split("\n", 1)
    assert head == f"#{index} tool_result id={b.entries[index].id}, folded by compaction:0"
    assert body == (FILLER + FACT + FILLER).rstrip() + "\n\nexit code 0"


def test_scopes_all_latest_and_compaction_n(tmp_path: Path) -> None:
    log = tmp_path / "s-main.jsonl"
    b = compacted(log)
    spans = [e.details for e in b.entries if isinstance(e, CompactionEntry)]
    ids = [e.id for e in b.entries]
    first = (ids.index(spans[0].range_first_id), ids.index(spans[0].range_last_id))
    latest = (ids.index(spans[1].range_first_id), ids.index(spans[1].range_last_id))

    text, _, _ = ask([log], scope="compaction:0", recent=3)
    shown, scope = f"#{first[1] - 2}-#{first[1]}", f"#{first[0]}-#{first[1]}"
    assert text.startswith(f"recall: entries {shown} of scope compaction:0 ({scope})")
    text, _, _ = ask([log], scope="latest", recent=3)
    assert f"(#{latest[0]}-#{latest[1]})" in text
    text, indices, _ = ask([log], scope="compaction:0", query="cache_key collision")
    assert all(first[0] <= i <= first[1] for i in indices)
    with Lineage.open([log]) as lineage:
        answer = recall(lineage, RecallRequest(scope="compaction:9"))
    assert answer.error
    assert answer.text == (
        'recall: unknown scope \'compaction:9\': use "all", "latest" or one of '
        '"compaction:0", "compaction:1"'
    )


def test_pages_follow_the_cursor_without_gaps_or_repeats(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder()
    for i in range(30):
        b.user(f"note {i} about the widget renderer")
    b.save(log)
    seen: list[int] = []
    cursor: str | None = None
    for _ in range(10):
        request: dict[str, object] = {"query": "widget renderer", "recent": 7}
        if cursor is not None:
            request["cursor"] = cursor
        _, indices, cursor = ask([log], **request)
        seen += indices
        if cursor is None:
            break
    assert sorted(seen) == list(range(1, 31))
    _, recent, cursor = ask([log], recent=5)
    assert (recent, cursor) == ((26, 27, 28, 29, 30), "5")
    _, older, _ = ask([log], recent=5, cursor="5")
    assert older == (21, 22, 23, 24, 25)


def test_all_words_rank_before_some(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder()
    b.user("token token token token")
    b.user("the refresh token expired")
    b.user("refresh the page")
    b.save(log)
    _, indices, _ = ask([log], query="refresh token")
    assert indices[0] == 2
    assert set(indices) == {1, 2, 3}


def test_touched_lists_entries_that_read_wrote_or_ran_commands_on_a_file(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder()
    b.read("src/app/models.py", "class User: ...")
    b.edit("src/app/models.py", "User", "Account")
    b.bash("python -m pytest tests/test_models.py && ruff check src/app/models.py", "ok", 0)
    b.read("src/app/views.py", "...")
    b.save(log)
    text, indices, _ = ask([log], mode="touched", query="./src/app/models.py")
    assert indices == (6, 5, 4, 3, 2, 1)
    assert (
        text.splitlines()[0]
        == "recall: 6 entries touched src/app/models.py in scope all, newest first"
    )


def test_expand_pages_through_a_huge_entry(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    b = SessionBuilder()
    index = b.bash("cat huge.log", "".join(f"{i:07d}\n" for i in range(250_000)), 0)
    b.save(log)
    text, _, cursor = ask([log], expand=[index])
    assert cursor == "40000"
    assert "(characters 0-40,000 of 2,000,012)" in text.splitlines()[0]
    text, _, cursor = ask([log], expand=[index], cursor=cursor)
    assert text.splitlines()[1] == "0005000"
    assert cursor == "80000"


def fork_lineage(folder: Path) -> tuple[SessionBuilder, SessionBuilder]:
    parent = SessionBuilder("s-parent")
    parent.user("parent turn one: pick the sqlite schema")
    fork_at = parent.say("chose the entries table").id
    parent.user("parent turn two, after the fork point")
    parent.save(folder / "s-parent.jsonl")
    child = SessionBuilder("s-child", parent=("s-parent", fork_at), id_prefix="c")
    child.user("child turn: add the fts index")
    child.save(folder / "s-child.jsonl")
    return parent, child


def test_a_fork_numbers_parent_entries_up_to_the_fork_then_its_own(tmp_path: Path) -> None:
    parent, child = fork_lineage(tmp_path)
    paths = directory_resolver(tmp_path)("s-child")
    assert paths == [tmp_path / "s-parent.jsonl", tmp_path / "s-child.jsonl"]
    branch: list[SessionEntry] = [*parent.entries[:3], *child.entries[1:]]  # what the store walks
    with Lineage.open(paths) as lineage:
        assert lineage.size == len(branch)
        assert [lineage.index_of(e.id) for e in branch] == list(range(len(branch)))
    text, indices, _ = ask(paths, query="fork")
    assert indices == ()  # the parent's entry after the fork point is not in this lineage
    assert text == 'recall: 0 entries match "fork" in scope all (#0-#3)'
    text, _, _ = ask(paths, recent=10)
    assert text.splitlines()[1:] == [
        "#0 session start: session s-parent in /work/project",
        "#1 user: parent turn one: pick the sqlite schema",
        "#2 assistant: chose the entries table",
        "#3 user: child turn: add the fts index",
        "whole entries: recall{expand: [0, 1, 2, 3]}",
    ]


def test_a_missing_parent_ends_the_lineage_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fork_lineage(tmp_path)
    (tmp_path / "s-parent.jsonl").unlink()
    with caplog.at_level(logging.WARNING, "shard.recall"):
        assert lineage_paths(tmp_path / "s-child.jsonl") == [tmp_path / "s-child.jsonl"]
    assert "parent session s-parent not found" in caplog.text
    with pytest.raises(SessionNotFoundError):
        lineage_paths(tmp_path / "nope.jsonl")
