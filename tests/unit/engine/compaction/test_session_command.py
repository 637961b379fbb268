"""`shard session compact|recall`: the command-line face of compaction and recall."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from shard_core.engine.session_store import SessionStore
from shard_core.types import CompactionEntry
from shard_core.types.errors import ConfigError, SessionLockedError
from shard_kernel.commands import session
from tests.fixtures.sessions.builders import load_entries
from tests.fixtures.sessions.realistic import preferences_session


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="shard")
    session.register(parser.add_subparsers())
    args = parser.parse_args(["session", *argv])
    return args.handler(args)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return preferences_session().save(tmp_path / "s-prefs.jsonl")


def test_dry_run_prints_the_summary_and_writes_nothing(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = log.read_bytes()
    assert run("compact", str(log), "--dry-run", "--keep", "200") == 0
    out, err = capsys.readouterr()
    assert out.startswith("# Compacted session summary\n")
    assert "## User Preferences\n- Always run ruff before committing." in out
    assert err.startswith("would fold e00001..e")
    assert log.read_bytes() == before


def test_compact_appends_one_entry_and_then_has_nothing_left_to_fold(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = len(load_entries(log))
    assert run("compact", str(log), "--keep", "200") == 0
    entries = load_entries(log)
    assert len(entries) == count + 1
    added = entries[-1]
    assert isinstance(added, CompactionEntry)
    assert added.parent_id == entries[-2].id
    assert added.details.summary == capsys.readouterr().out
    assert run("compact", str(log), "--keep", "200") == 0
    err = capsys.readouterr().err
    assert err.startswith("nothing to compact: live context ~")
    assert err.endswith("is its last turn, which is kept, or a summary would not make it smaller\n")
    assert len(load_entries(log)) == count + 1


def test_compact_refuses_while_the_agent_holds_the_log(log: Path) -> None:
    with SessionStore.open(log), pytest.raises(SessionLockedError):
        run("compact", str(log))


def test_recall_prints_what_the_tool_would_answer(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("recall", str(log), "capsys fixture", "--recent", "1") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == (
        "#16 user: Please use pytest's [capsys] [fixture] for the output tests, not subprocess."
    )
    assert run("recall", str(log), "--expand", "1") == 0
    assert capsys.readouterr().out.startswith("#1 message id=e00001\nLet's add a --json flag")
    assert run("recall", str(log), "(a+)+$", "--mode", "regex") == 2  # a bad query
    with pytest.raises(ConfigError, match="scope must be"):
        run("recall", str(log), "x", "--scope", "yesterday")


def test_search_ranks_the_entries_of_every_session_under_shard_home(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path))
    preferences_session().save(tmp_path / "sessions" / "s-prefs.jsonl")
    assert run("search", "capsys fixture", "--limit", "1") == 0
    assert capsys.readouterr().out == (
        "s-prefs #16 user: Please use pytest's [capsys] [fixture] for the output tests, "
        "not subprocess.\n"
    )
    assert run("search", "kubernetes") == 7  # nothing found
    assert capsys.readouterr().out == f'no session under {tmp_path} has "kubernetes"\n'
