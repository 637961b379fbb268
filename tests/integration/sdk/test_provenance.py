"""Model-visible ⟺ logged, provably: every request the provider server received is rebuilt,
byte-equal after canonical JSON, from the session log alone — with the real anthropic and
openai SDKs against the fake LLM server, across injected context, a steer, a compaction, a
resume, a fork and a skill rehydrated after the compaction.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.engine.config import CompactionConfig, ProviderConfig, ShardConfig
from shard_core.protocol.events import Event
from shard_core.providers.wire import canonical_json
from shard_core.sdk import Agent, create_agent
from tests.fixtures.fake_llm import FakeLLMServer

MODELS = {"anthropic": "anthropic/claude-sonnet-4-6", "openai": "openai/gpt-5"}


def _script() -> list[dict[str, object]]:
    return [
        # turn 1: a tool call (during it a steer arrives), then the answer
        {"text": "Reading.", "tool_calls": [
            {"id": "t1", "name": "bash", "input": {"command": "cat notes.txt"}}]},
        {"text": "The notes say the key rotates hourly."},
        # turn 2 (after an injected note): a skill loaded, then the answer
        {"text": "Loading the style.", "tool_calls": [
            {"id": "t2", "name": "load_skill", "input": {"name": "report-style"}}]},
        {"text": "Noted: Python 3.11 only."},
        # turn 3 (after a manual compaction that folded the skill: ## Activated Skills)
        {"text": "Still here after the compaction."},
        # turn 4 (a resumed agent)
        {"text": "Resumed."},
        # turn 5 (a fork of the resumed session)
        {"text": "Forked."},
    ]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home"


async def _agent(provider: str, srv: FakeLLMServer, repo: Path, **kwargs: object) -> Agent:
    base = srv.anthropic_base_url if provider == "anthropic" else srv.openai_base_url
    config = ShardConfig(
        providers={provider: ProviderConfig(api_key="test", base_url=base)},
        compaction=CompactionConfig(keep_recent_tokens=0),  # the skill's load is folded
    )
    return await create_agent(
        cwd=repo,
        model=MODELS[provider],
        config=config,
        env={"HOME": str(repo.parent / "user")},
        allow=["Bash(*)"],
        agent_id="agent-prov",
        max_tokens=1234,
        temperature=0.25,
        **kwargs,
    )


async def _steer_during_tool(agent: Agent, prompt: str) -> None:
    """Steer from the tool_call event itself (subscribers run as it is emitted): the steer
    is waiting before the tool runs, whatever the machine's speed."""

    def on_event(event: Event) -> None:
        if event.type == "tool_call":
            agent.steer("also check the date format", steer_id="s1")

    unsubscribe = agent.events.subscribe(on_event)
    try:
        await agent.run(prompt)
    finally:
        unsubscribe()


def _rebuilt(log: Path, home: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "session", "request", str(log), "--all"],
        capture_output=True,
        text=True,
        check=False,
        env={"SHARD_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # nothing assumed: the log recorded every parameter
    return out.stdout.splitlines()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_every_request_is_rebuilt_from_the_log_byte_for_byte(
    provider: str, tmp_path: Path, home: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "notes.txt").write_text("the key rotates hourly\n")
    skill = home / "skills" / "report-style"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: report-style\ndescription: How reports are written\n---\n\n"
        "Start every report with PELICAN-7.\n"
    )
    with FakeLLMServer(script=_script()) as srv:
        agent = await _agent(provider, srv, repo)
        try:
            await _steer_during_tool(agent, "read notes.txt")
            agent.inject("Python 3.11 only", kind="note", label="constraints")
            await agent.run("what are the constraints?")
            compaction = await agent.session.compact("manual", force=True)
            assert compaction is not None
            await agent.run("are you still there?")
            session_id = agent.session.store.session_id
        finally:
            await agent.close()
        resumed = await _agent(provider, srv, repo, resume=session_id)
        try:
            await resumed.run("resume check")
            child = resumed.fork()
        finally:
            await resumed.close()
        forked = await _agent(provider, srv, repo, resume=child)
        try:
            await forked.run("fork check")
            child_log = forked.session.store.path
        finally:
            await forked.close()
        srv.wait_idle()
        received = [canonical_json(r.body) for r in srv.requests]
    parent_log = child_log.parent / f"{session_id}.jsonl"
    rebuilt = _rebuilt(parent_log, home) + _rebuilt(child_log, home)
    assert len(received) == 7  # two in each of the first two turns, one in the other four
    assert rebuilt == received
    # the parameters the log had to record are there, not defaults
    first = received[0]
    assert '"max_tokens":1234' in first  # a compatible server gets max_tokens, not the official
    if provider == "openai":  # API's max_completion_tokens (the Messages API has no temperature)
        assert '"temperature":0.25' in first
    assert "also check the date format" in received[1]  # the steer reached request 2
    assert 'label=\\"constraints\\"' in received[2]
    # the compaction folded the skill's load: the next requests rehydrate it in the system
    assert "## Activated Skills" not in received[3]
    assert "## Activated Skills" in received[4]
    assert "PELICAN-7" in received[4]
