"""`shard run` exit status: 0 completed, 3 blocked by denials, 1 error, 2 bad command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shard_core.protocol.events import TurnEndEvent
from shard_kernel.cli import main
from shard_kernel.commands.run import exit_status

WRITE_SECRET = {"tool_calls": [{"name": "write", "input": {"path": "secret.txt", "content": "x"}}]}
WRITE_NOTES = {"tool_calls": [{"name": "write", "input": {"path": "notes.txt", "content": "y"}}]}
LIST = {"tool_calls": [{"name": "ls", "input": {"path": "."}}]}
GIVE_UP = {"text": "I could not do it."}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    work.mkdir()
    return work


def run(work: Path, steps: list[dict[str, Any]], *options: str) -> int:
    script = work.parent / "script.json"
    script.write_text(json.dumps({"name": "exit-status", "steps": steps}))
    return main(["run", "--model", f"scripted/{script}", "--cwd", str(work), *options, "go"])


@pytest.mark.parametrize(
    ("steps", "options", "status"),
    [
        ([WRITE_SECRET, GIVE_UP], [], 3),  # no terminal: the headless policy denies the write
        ([WRITE_SECRET, GIVE_UP], ["--deny", "Write(secret.txt)"], 3),  # a rule denies it
        ([WRITE_SECRET, LIST, GIVE_UP], [], 3),  # looking around after the denial changes nothing
        ([WRITE_SECRET, GIVE_UP], ["--allow", "Write(secret.txt)"], 0),
        ([WRITE_SECRET, WRITE_NOTES, GIVE_UP], ["--allow", "Write(notes.txt)"], 0),  # a way round
        ([WRITE_NOTES, WRITE_SECRET, GIVE_UP], ["--allow", "Write(notes.txt)"], 3),  # then blocked
        ([LIST, GIVE_UP], [], 0),
    ],
)
def test_exit_status_says_whether_denials_blocked_the_turn(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    steps: list[dict[str, Any]],
    options: list[str],
    status: int,
) -> None:
    assert run(work, steps, *options) == status
    out = capsys.readouterr().out
    assert "I could not do it." in out
    assert (work / "secret.txt").exists() == (options == ["--allow", "Write(secret.txt)"])


def test_a_failing_tool_is_not_a_denial(work: Path) -> None:
    missing = {"tool_calls": [{"name": "read", "input": {"path": "nope.txt"}}]}
    assert run(work, [missing, GIVE_UP]) == 0


def test_bad_input_exits_2_like_a_bad_command_line(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--model", "nonsense", "--cwd", str(work), "hi"]) == 2
    assert main(["run", "--model", f"scripted/{work / 'missing.json'}", "hi"]) == 2
    assert "shard: error:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["run", "--no-such-option", "hi"])
    assert exited.value.code == 2


@pytest.mark.parametrize(
    ("reason", "blocked", "status"),
    [
        ("completed", False, 0),
        ("completed", True, 3),
        ("error", True, 4),
        ("max_steps", False, 1),
        ("aborted", True, 130),
    ],
)
def test_only_a_completed_turn_can_be_blocked(reason: Any, blocked: bool, status: int) -> None:
    end = TurnEndEvent(agent_id="a", seq=1, ts=0, turn_id="t", reason=reason)
    assert exit_status(end, blocked=blocked) == status


def test_help_documents_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "exit status:" in out
    assert "3    the turn completed but was blocked by permission denials" in out


def test_a_resumed_run_continues_the_script(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a step is one model call: the second turn plays the listing and the reply after it
    steps = [{"text": "step one"}, LIST | {"text": "step two"}, GIVE_UP, {"text": "step three"}]
    assert run(work, steps) == 0
    assert "step one" in capsys.readouterr().out
    (session,) = (work.parent / "home" / "sessions").glob("*.jsonl")
    assert run(work, steps, "--resume", session.stem) == 0
    second = capsys.readouterr().out
    assert "step two" in second
    assert "script finished" not in second
    assert run(work, steps, "--resume", str(session)) == 0
    assert "step three" in capsys.readouterr().out
