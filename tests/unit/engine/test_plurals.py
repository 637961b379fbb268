"""Counts read as English: "1 entry", "2 entries" — in the helper and where Shard says them."""

from __future__ import annotations

from pathlib import Path

from shard_core.engine.plurals import counted
from shard_core.engine.recall import Lineage, RecallRequest, recall
from tests.fixtures.sessions.builders import SessionBuilder


def test_counted_uses_the_singular_only_for_one() -> None:
    assert [counted(n, "entry") for n in (0, 1, 2)] == ["0 entries", "1 entry", "2 entries"]
    assert counted(1, "file") == "1 file"
    assert counted(12345, "line", grouped=True) == "12,345 lines"
    assert counted(1, "entry matches", "entries match") == "1 entry matches"


def test_recall_says_one_entry_matches(tmp_path: Path) -> None:
    b = SessionBuilder("s-one")
    b.user("the unusual word is xylophone")
    log = tmp_path / "s-one.jsonl"
    b.save(log)

    with Lineage.open([log]) as lineage:
        answer = recall(lineage, RecallRequest(query="xylophone"))

    assert answer.text.startswith('recall: 1 entry matches "xylophone"'), answer.text
