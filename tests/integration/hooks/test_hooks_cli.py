"""`shard hooks list` and `shard hooks test EVENT`: what is configured, and one event's hooks
run (real subprocesses) against a sample event; bad input exits 2 with one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shard_kernel.cli import main
from tests.integration.hooks.recording import hook, seen


def configure(work: Path, hooks: dict[str, Any]) -> None:
    folder = work.parent / "xdg" / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")


def shard(*args: str) -> int:
    return main(["hooks", *args])


def test_list_shows_each_hook_and_each_note(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(work, {"PreToolUse": [hook(work, "block", "Bash")], "PreTooluse": []})
    assert shard("list", "--cwd", str(work)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("PreToolUse  Bash  ")
    assert lines[0].endswith("hook.py block  (30 s, config.json)")
    assert lines[1].startswith("note: hooks (config.json) PreTooluse: unknown event")
    assert shard("list", "--cwd", str(work), "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert [h["event"] for h in listed["hooks"]] == ["PreToolUse"]


def test_test_runs_the_matching_hooks_against_a_sample_call(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(work, {"PreToolUse": [hook(work, "block", "Bash"), hook(work, "none", "Edit")]})
    code = shard("test", "PreToolUse", "--cwd", str(work), "--input", '{"command": "rm -rf /"}')
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("hook PreToolUse (bash) `")
    assert ": deny, exit 2, " in out
    assert out.rstrip().endswith(": no rm here")
    [event] = seen(work)  # only the Bash hook ran
    assert event["tool_input"] == {"command": "rm -rf /"}
    assert event["hook_event_name"] == "PreToolUse"
    assert event["session_id"] == "hooks-test"


def test_test_of_each_other_event_runs_its_hook_once(work: Path) -> None:
    events = ["UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionStart",
              "SessionEnd", "Notification", "PermissionRequest", "PostToolUse"]  # fmt: skip
    configure(work, {e: [hook(work, "none", "")] for e in events})
    for event in events:
        assert shard("test", event, "--cwd", str(work)) == 0
    assert [e["hook_event_name"] for e in seen(work)] == events


def test_bad_input_is_one_clear_line(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(work, {})
    assert shard("test", "PreTooluse", "--cwd", str(work)) == 2
    assert "unknown hook event 'PreTooluse'; known: PreToolUse" in capsys.readouterr().err
    assert shard("test", "PreToolUse", "--cwd", str(work), "--input", "{nope") == 2
    assert "--input is not JSON" in capsys.readouterr().err
    assert shard("test", "PreToolUse", "--cwd", str(work)) == 0
    assert capsys.readouterr().out == "No PreToolUse hook matches bash.\n"
