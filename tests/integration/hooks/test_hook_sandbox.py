"""Hooks run like the agent's bash: inside its command sandbox (bubblewrap) unless an entry says
`"sandbox": false`, with the secret-free environment, and a timeout. The canary folder lives
under /var/tmp: bubblewrap gives a command its own /tmp, so a canary there would prove nothing."""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from shard_core.tools.sandbox import probe_bwrap
from shard_core.types import CheckpointEntry, HookRunCheckpoint
from tests.integration.hooks.recording import agent_with, bash

pytestmark = pytest.mark.skipif(probe_bwrap().bwrap is None, reason="bubblewrap does not run here")


@pytest.fixture
def canary() -> Iterator[Path]:
    folder = Path("/var/tmp") / f"shard-hook-canary-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    try:
        yield folder / "written"
    finally:
        shutil.rmtree(folder)


def touch(canary: Path, **extra: object) -> dict[str, object]:
    return {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": f"touch {canary}", **extra}],
    }


async def runs(work: Path, hooks: dict[str, object], **kwargs: object) -> list[HookRunCheckpoint]:
    agent, _ = await agent_with(work, hooks, bash("echo hi"), **kwargs)
    try:
        await agent.run("go")
        return [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, HookRunCheckpoint)
        ]
    finally:
        await agent.close()


async def test_a_hook_runs_in_the_sandbox_by_default(work: Path, canary: Path) -> None:
    [run] = await runs(work, {"PreToolUse": [touch(canary)]})
    assert run.sandboxed
    assert (run.decision, run.exit_code) == ("error", 1)
    assert "Read-only file system" in (run.reason or "")
    assert not canary.exists()


async def test_sandbox_false_runs_it_outside(work: Path, canary: Path) -> None:
    [run] = await runs(work, {"PreToolUse": [touch(canary, sandbox=False)]})
    assert not run.sandboxed
    assert (run.decision, run.exit_code) == ("none", 0)
    assert canary.exists()


async def test_a_hook_gets_the_secret_free_environment(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x9" * 20)
    monkeypatch.setenv("SHARD_TEST_PLAIN", "plain value")
    script = work / ".hooks" / "env.py"
    script.write_text(
        "import os, sys\n"
        "print(os.environ.get('ANTHROPIC_API_KEY', 'unset'), os.environ.get('CLAUDE_PROJECT_DIR'),"
        " file=sys.stderr)\n"
        "sys.exit(2)\n"
    )
    hooks: dict[str, object] = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": f"{sys.executable} {script}"}]}]
    }
    [run] = await runs(work, hooks)
    assert run.reason == f"unset {work.resolve()}"


READER = """
import json, os, sys
from pathlib import Path
event = json.load(sys.stdin)
transcript = Path(event["transcript_path"])
home = Path(sys.argv[1])
def can_read(path):
    try:
        return len(path.read_bytes()) > 0
    except OSError:
        return False
def can_write(path):
    try:
        with open(path, "a") as f:
            f.write("planted\\n")
        return True
    except OSError:
        return False
found = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
lines = transcript.read_text().splitlines() if can_read(transcript) else []
print(json.dumps({
    "transcript": [json.loads(line).get("type") for line in lines][:1],
    "session_id_in_it": event["session_id"] in "".join(lines),
    "transcript_writable": can_write(transcript),
    "other_session": can_read(home / "sessions" / "other.jsonl"),
    "config": can_read(home / "secret.txt"),
    "home_shows": found,
}), file=sys.stderr)
sys.exit(2)
"""


async def test_a_sandboxed_hook_reads_its_transcript_and_nothing_else_of_shard_home(
    work: Path, canary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SHARD_HOME under /var/tmp (a /tmp one would be hidden by the private /tmp alone): the
    hook reads `transcript_path`, cannot change it, and sees no other file of SHARD_HOME."""
    home = canary.parent / "home"
    (home / "sessions").mkdir(parents=True)
    (home / "sessions" / "other.jsonl").write_text('{"type": "session", "secret": "s3"}\n')
    (home / "secret.txt").write_text("sk-canary\n")
    monkeypatch.setenv("SHARD_HOME", str(home))
    (work / ".hooks" / "reader.py").write_text(READER)
    command = f"{sys.executable} {work / '.hooks' / 'reader.py'} {home}"
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": command}]}]}
    agent, _ = await agent_with(work, hooks, bash("echo hi"))
    try:
        transcript = agent.session.store.path.resolve()
        await agent.run("go")
        [run] = [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, HookRunCheckpoint)
        ]
    finally:
        await agent.close()
    assert transcript.is_relative_to(home.resolve())
    assert (run.sandboxed, run.exit_code) == (True, 2)
    assert json.loads(run.reason or "") == {
        "transcript": ["session"],
        "session_id_in_it": True,
        "transcript_writable": False,
        "other_session": False,
        "config": False,
        "home_shows": sorted(
            str(p.relative_to(home.resolve()))
            for p in [transcript, *transcript.parents]
            if p.is_relative_to(home.resolve()) and p != home.resolve()
        ),
    }
    assert "planted" not in transcript.read_text()
