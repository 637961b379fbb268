"""The whole agent with the real anthropic and openai SDKs against the fake LLM server.

In a temp git repo with a failing test, the agent reads, edits, runs the tests with bash and
finishes; the file is fixed, the tests pass, and the JSONL holds the whole turn.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.engine.config import ProviderConfig, ShardConfig
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import ErrorEvent, TurnEndEvent
from shard_core.sdk import create_agent
from tests.fixtures.fake_llm import FakeLLMServer

BUGGY = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def _repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text(BUGGY)
    (repo / "test_calc.py").write_text(TEST)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    return repo


def _script() -> list[dict[str, object]]:
    return [
        {"text": "Reading calc.py.", "tool_calls": [
            {"id": "t1", "name": "read", "input": {"path": "calc.py"}}]},
        {"text": "Fixing it.", "tool_calls": [{"id": "t2", "name": "edit", "input": {
            "path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}]},
        {"tool_calls": [{"id": "t3", "name": "bash", "input": {"command": PYTEST}}]},
        {"text": "Fixed: add() now adds, and the test passes."},
    ]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_the_agent_fixes_a_failing_test(provider: str, tmp_path: Path, home: Path) -> None:
    repo = _repo(tmp_path)
    with FakeLLMServer(script=_script()) as srv:
        base = srv.anthropic_base_url if provider == "anthropic" else srv.openai_base_url
        config = ShardConfig(providers={provider: ProviderConfig(api_key="test", base_url=base)})
        model = "anthropic/claude-sonnet-4-6" if provider == "anthropic" else "openai/gpt-5"
        agent = await create_agent(
            cwd=repo, model=model, config=config, env={}, allow=["Edit(calc.py)", "Bash(*)"]
        )
        try:
            events = [e async for e in agent.prompt("the tests fail; fix the bug")]
            log = agent.session.store.path
        finally:
            await agent.close()
        requests = srv.requests
    end = events[-1]
    assert isinstance(end, TurnEndEvent)
    assert end.reason == "completed", [e for e in events if isinstance(e, ErrorEvent)]
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    check = subprocess.run(PYTEST.split(), cwd=repo, capture_output=True, check=False)
    assert check.returncode == 0
    assert len(requests) == 4
    store = SessionStore.read(log)
    kinds = [e.type for e in store.branch()]
    assert kinds.count("tool_result") == 3
    assert kinds.count("message") == 5  # the prompt and four replies
    results = [e for e in store.branch() if e.type == "tool_result"]
    assert "2 passed" not in results[-1].details.result.text  # one test: "1 passed"
    assert "1 passed" in results[-1].details.result.text
    assert end.usage.input_tokens > 0


async def test_rate_limit_then_success_and_auth_failure(tmp_path: Path, home: Path) -> None:
    repo = _repo(tmp_path)
    script = [
        {"error": {"status": 429, "message": "slow down", "retry_after": 0.01}},
        {"text": "hello after a retry"},
        {"error": {"status": 401, "message": "invalid x-api-key"}},
    ]
    with FakeLLMServer(script=script) as srv:
        config = ShardConfig(
            providers={"anthropic": ProviderConfig(api_key="t", base_url=srv.anthropic_base_url)}
        )
        agent = await create_agent(
            cwd=repo, model="anthropic/claude-sonnet-4-6", config=config, env={}
        )
        try:
            first = [e async for e in agent.prompt("hi")]
            second = [e async for e in agent.prompt("again")]
        finally:
            await agent.close()
        assert len(srv.requests) == 3
    assert isinstance(first[-1], TurnEndEvent)
    assert first[-1].reason == "completed"
    errors = [e for e in second if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["ProviderAuthError"]
    assert isinstance(second[-1], TurnEndEvent)
    assert second[-1].reason == "error"
