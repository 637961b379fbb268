"""`shard session …` and `shard sessions …` name a session by its path or by its id."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shard_kernel.cli import main
from shard_kernel.exit_codes import ExitCode
from tests.fixtures.sessions.realistic import preferences_session


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("SHARD_HOME", str(home))
    return home


def saved(home: Path) -> tuple[str, Path]:
    session = preferences_session()
    folder = home / "agents" / "agent-x" / "sessions"
    folder.mkdir(parents=True)
    path = session.save(folder / "s-prefs.jsonl")
    return "s-prefs", path


def test_recall_finds_a_session_by_its_id(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id, path = saved(home)
    assert main(["session", "recall", session_id, "ruff"]) == 0
    by_id = capsys.readouterr().out
    assert main(["session", "recall", str(path), "ruff"]) == 0
    assert capsys.readouterr().out == by_id
    assert "ruff" in by_id


def test_compact_finds_a_session_by_its_id(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id, _ = saved(home)
    assert main(["session", "compact", session_id, "--dry-run", "--keep", "200"]) == 0
    assert capsys.readouterr().out.startswith("# Compacted session summary\n")


def test_an_id_with_the_jsonl_suffix_is_found_too(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id, _ = saved(home)
    monkeypatch.chdir(tmp_path)  # no such file here: the name is taken as an id
    assert main(["session", "recall", f"{session_id}.jsonl", "ruff"]) == 0
    assert "ruff" in capsys.readouterr().out
    assert main(["session", "recall", "s-nope.jsonl", "x"]) == 2
    err = capsys.readouterr().err
    assert "no session log at s-nope.jsonl, and no session 's-nope' under" in err


def test_bad_token_counts_are_refused_by_name(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id, _ = saved(home)
    for flag, value in [("--window", "0"), ("--window", "-5"), ("--target", "0"),
                        ("--keep", "-1"), ("--window", "lots")]:  # fmt: skip
        with pytest.raises(SystemExit) as exited:
            main(["session", "compact", session_id, "--dry-run", flag, value])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}: " in err
        assert ("too small" in err) or ("not a whole number" in err)


def test_an_empty_file_or_a_json_array_is_not_a_session_log(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty, array = tmp_path / "empty.jsonl", tmp_path / "array.jsonl"
    empty.write_text("")
    array.write_text("[1, 2]\n")
    assert main(["session", "compact", str(empty), "--dry-run"]) == 2
    assert "is empty: not a Shard session log" in capsys.readouterr().err
    assert main(["session", "recall", str(array), "x"]) == 2
    err = capsys.readouterr().err
    assert "its first line is a JSON list, not the session header object" in err
    assert "attribute" not in err


def test_an_unknown_id_or_path_is_a_clear_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["session", "recall", "s-nope", "x"]) == 2
    assert "no session 's-nope' under" in capsys.readouterr().err
    assert main(["session", "compact", "/nowhere/s-nope.jsonl"]) == 2
    assert "no session log at /nowhere/s-nope.jsonl" in capsys.readouterr().err


def test_a_file_that_is_not_a_session_log_is_refused_untouched(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text('{"type":"status","agent_id":"agent-x","seq":1}\n')
    before = events.read_bytes()
    for argv in (["session", "compact", str(events)], ["session", "recall", str(events), "x"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "is not a Shard session log: its first line is a 'status' record" in err
        assert "Traceback" not in err
    assert events.read_bytes() == before
    assert not list(tmp_path.glob("events.jsonl.*"))  # no lock, no cache, no torn tail beside it


def test_a_reader_that_leaves_early_is_not_a_traceback(home: Path) -> None:
    _, path = saved(home)
    for _ in range(4):  # a log long enough to fill the pipe
        path.write_text(path.read_text() + path.read_text().split("\n", 1)[1])
    command = f"{sys.executable} -m shard_kernel.cli sessions show {path} | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr, done.stderr


def test_a_reader_gone_before_the_first_line_is_exit_141(home: Path) -> None:
    _, path = saved(home)
    argv = [sys.executable, "-m", "shard_kernel.cli", "sessions", "show", str(path)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader leaves before shard writes anything
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.BROKEN_PIPE == 141
    assert "Traceback" not in err, err


def test_search_ranks_entries_of_every_session_under_home(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id, _ = saved(home)
    assert main(["session", "search", "ruff", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert 1 <= len(lines) <= 3
    assert all(line.startswith(f"{session_id} #") for line in lines)
    assert main(["session", "search", "zebrafishnotthere"]) == 7  # nothing found
    assert 'has "zebrafishnotthere"' in capsys.readouterr().out
