"""A third-party provider gets exactly what a bundled one gets: `tests/fixtures/acme_provider.py`
is copied into `SHARD_HOME/extensions/` (loaded the way a user's extension is) and registers a
ProviderSpec through the real ExtensionApi. Its families give the context window (the usage
events, the compaction threshold) and the price (each reply's cost); with its key set it is
the default model before Anthropic's (priority); `shard session request` rebuilds the exact
body it sent from the log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from shard_core.engine.config import CompactionConfig, ShardConfig
from shard_core.protocol.events import UsageEvent
from shard_core.providers.wire import canonical_json
from shard_core.sdk import Agent, create_agent
from shard_core.types import CompactionEntry, MessageEntry
from tests.fixtures import acme_provider

ROOT = Path(__file__).resolve().parents[3]
# 8,500 input tokens at $2 and 10 output tokens at $8 per million
COST = (acme_provider.INPUT_TOKENS * 2 + acme_provider.OUTPUT_TOKENS * 8) / 1_000_000


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    shutil.copy(acme_provider.__file__, home / "extensions" / "acme.py")
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return home


async def _agent(home: Path, env: dict[str, str], **kwargs: Any) -> Agent:
    repo = home.parent / "repo"
    repo.mkdir(exist_ok=True)
    config = ShardConfig(compaction=CompactionConfig(keep_recent_tokens=0))
    return await create_agent(
        cwd=repo, home=home, config=config, env={"HOME": str(home.parent), **env}, **kwargs
    )


def _acme(agent: Agent) -> acme_provider.AcmeProvider:
    """The agent's provider: the extension file's copy of the fixture's class."""
    assert type(agent.session.provider).__module__ == "shard_ext_acme"
    return cast(acme_provider.AcmeProvider, agent.session.provider)


async def test_with_its_key_set_it_is_the_default_model_before_anthropic(home: Path) -> None:
    keys = {"ACME_API_KEY": "acme-key", "ANTHROPIC_API_KEY": "anthropic-key"}
    agent = await _agent(home, keys)
    try:
        provider = agent.session.provider
        assert (provider.name, provider.model) == ("acme", "acme-large")
        assert _acme(agent).api_key == "acme-key"  # its env key, read by the core
    finally:
        await agent.close()
    agent = await _agent(home, {"ANTHROPIC_API_KEY": "anthropic-key"})
    try:  # without its key, the next spec in priority order
        assert agent.session.provider.name == "anthropic"
    finally:
        await agent.close()


async def test_its_families_give_the_window_and_the_price(home: Path) -> None:
    agent = await _agent(home, {}, model="acme/acme-large")
    small = await _agent(home, {}, model="acme/acme-small")
    await small.close()
    assert small.session.provider.context_window == 4_000  # the longest family wins
    try:
        assert agent.session.provider.context_window == 10_000  # not the 128k default
        events = [e async for e in agent.prompt("hello")]
        usage = next(e for e in events if isinstance(e, UsageEvent))
        assert usage.context_window == 10_000
        assert usage.request.cost_usd == pytest.approx(COST)
        message = next(
            e.details.message for e in agent.session.store.entries if isinstance(e, MessageEntry)
            and e.details.message.role == "assistant"
        )  # fmt: skip
        assert message.usage is not None
        assert message.usage.cost_usd == pytest.approx(COST)
        records = (home / "usage.jsonl").read_text(encoding="utf-8").splitlines()
        assert json.loads(records[-1])["cost_usd"] == pytest.approx(COST)
        # 8,510 of 10,000 tokens is past the 0.8 threshold: the next turn compacts first
        await agent.run("again")
        assert any(isinstance(e, CompactionEntry) for e in agent.session.store.entries)
    finally:
        await agent.close()


async def test_provenance_rebuilds_the_body_it_sent(home: Path) -> None:
    agent = await _agent(home, {"ACME_API_KEY": "k"})
    try:
        await agent.run("first")
        await agent.run("second")
        sent = [canonical_json(body) for body in _acme(agent).sent]
        log = agent.session.store.path
    finally:
        await agent.close()
    out = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "session", "request", str(log), "--all"],
        capture_output=True,
        text=True,
        check=False,
        env={"SHARD_HOME": str(home), "PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no "no known wire format": its spec's wire body was found
    assert out.stdout.splitlines() == sent
    assert json.loads(sent[-1])["tier"] == "fast"  # its recorded wire options


def test_shard_run_answers_with_it_when_only_its_key_is_set(home: Path) -> None:
    """`shard run` checks for a configured model before it builds the agent (so nothing is
    logged when there is none): that check counts the extension's provider too."""
    work = home.parent / "work"
    work.mkdir()
    env = {name: value for name, value in os.environ.items() if not name.endswith("_API_KEY")}
    env.pop("OPENAI_BASE_URL", None)
    env |= {"SHARD_HOME": str(home), "PYTHONPATH": str(ROOT), "ACME_API_KEY": "k"}
    env |= {"XDG_CONFIG_HOME": str(home.parent / "xdg"), "HOME": str(home.parent)}
    out = subprocess.run(
        [sys.executable, "-m", "shard_kernel.cli", "run", "hello"],
        capture_output=True, text=True, env=env, cwd=work, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "acme acme-large answers" in out.stdout
