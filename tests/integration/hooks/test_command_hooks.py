"""Command hooks in Claude Code's shape, run as real subprocesses around real tool calls.

A recording hook script (python, written here) logs the JSON it is given on stdin and answers
as its behaviour file says; the function provider plays the model and records each request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.hooks.recording import bash, hook, run, seen


async def test_pre_tool_use_gets_the_documented_json_and_post_tool_use_the_response(
    work: Path,
) -> None:
    hooks = {"PreToolUse": [hook(work, "none")], "PostToolUse": [hook(work, "none")]}
    _, results, _ = await run(work, hooks, bash("echo hi"))
    assert not results[0].is_error
    pre, post = seen(work)
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "bash"
    assert pre["tool_input"] == {"command": "echo hi"}
    assert pre["cwd"] == str(work.resolve())
    assert pre["session_id"]
    assert pre["transcript_path"].endswith(".jsonl")
    assert post["hook_event_name"] == "PostToolUse"
    assert "hi" in post["tool_response"]["text"]


async def test_exit_2_blocks_with_stderr_fed_back(work: Path) -> None:
    _, results, _ = await run(work, {"PreToolUse": [hook(work, "block")]}, bash("echo x > f"))
    assert results[0].is_error
    assert "no rm here" in results[0].text
    assert not (work / "f").exists()


async def test_json_deny_blocks(work: Path) -> None:
    _, results, _ = await run(work, {"PreToolUse": [hook(work, "deny")]}, bash("echo x > f"))
    assert results[0].is_error
    assert "policy says no" in results[0].text
    assert not (work / "f").exists()


async def test_updated_input_runs_the_changed_command_judged_by_the_gate(work: Path) -> None:
    hooks = {"PreToolUse": [hook(work, "rewrite")]}
    _, results, _ = await run(work, hooks, bash("echo original"))
    assert not results[0].is_error, results[0].text
    assert "changed" in results[0].text
    assert "original" not in results[0].text
    # the gate judges the changed command: a deny rule on it stops the call
    _, results, _ = await run(work, hooks, bash("echo original"), deny=["Bash(echo changed)"])
    assert results[0].is_error
    assert "permission denied" in results[0].text


async def test_post_tool_use_additional_context_reaches_the_next_request(work: Path) -> None:
    provider, _, _ = await run(work, {"PostToolUse": [hook(work, "context")]}, bash("echo hi"))
    second = json.dumps([m.model_dump(mode="json") for m in provider.requests[1].messages])
    assert "LINT: 3 warnings in out.txt" in second


@pytest.mark.parametrize("mode", ["crash", "garbage", "hang", "allow"])
async def test_a_failing_or_allowing_hook_never_allows_an_asked_call(work: Path, mode: str) -> None:
    hooks = {"PreToolUse": [hook(work, mode, timeout=1)]}
    _, results, _ = await run(work, hooks, bash("touch asked.txt"), allow=[])
    assert results[0].is_error
    assert "permission denied" in results[0].text
    assert not (work / "asked.txt").exists()


async def test_a_hooks_allow_never_beats_a_deny_rule(work: Path) -> None:
    hooks = {"PreToolUse": [hook(work, "allow")]}
    _, results, _ = await run(work, hooks, bash("echo x > f"), deny=["Bash(echo:*)"])
    assert results[0].is_error
    assert not (work / "f").exists()


async def test_star_and_empty_matchers_select_every_tool(work: Path) -> None:
    for matcher in ("*", ""):
        _, results, notes = await run(work, {"PreToolUse": [hook(work, "block", matcher)]},
                                      bash("echo hi"))  # fmt: skip
        assert results[0].is_error, matcher
        assert not [n for n in notes if n.startswith("hooks")], notes


async def test_matcher_selects_tools(work: Path) -> None:
    hooks = {"PreToolUse": [hook(work, "block", matcher="Edit|Write")]}
    _, results, _ = await run(work, hooks, bash("echo hi"))
    assert not results[0].is_error
    assert seen(work) == []


async def test_project_hooks_need_trust(work: Path) -> None:
    (work / ".shard").mkdir()
    settings = {"hooks": {"PreToolUse": [hook(work, "block")]}}
    (work / ".shard" / "settings.json").write_text(json.dumps(settings))
    _, results, diagnostics = await run(work, {}, bash("echo hi"))
    assert not results[0].is_error
    assert seen(work) == []
    assert any("need --trust-project" in d for d in diagnostics)
    _, results, _ = await run(work, {}, bash("echo hi"), trust_project=True)
    assert results[0].is_error
    assert "no rm here" in results[0].text


async def test_bad_entries_get_one_diagnostic_each_and_the_rest_works(work: Path) -> None:
    hooks = {
        "PreTooluse": [hook(work, "block")],
        "PostToolUse": [
            {"matcher": "([", "hooks": [{"type": "command", "command": "true"}]},
            {"matcher": "Bash", "hooks": [{"type": "command"}]},
            {"matcher": "Bash", "hooks": [{"command": "true", "sandbox": "no"}]},
        ],
        "PreToolUse": [hook(work, "block")],
    }
    _, results, diagnostics = await run(work, hooks, bash("echo hi"))
    assert results[0].is_error
    assert "no rm here" in results[0].text
    notes = [d for d in diagnostics if d.startswith("hooks")]
    assert len(notes) == 4, notes
    assert "unknown event" in notes[0]
    assert "not a regex" in notes[1]
    assert "missing command" in notes[2]
    assert "sandbox must be true or false; the sandbox is used" in notes[3]
