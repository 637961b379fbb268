"""Agents with MCP servers: a temporary SHARD_HOME, a function-driven model, a person who answers.

The servers are real processes (PyPI's `mcp-server-time` and `mcp-server-git`, and the SDK-built
fixture servers in tests/fixtures/mcp_servers); only the model is scripted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi, PermissionAnswer, PermissionPrompt
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ProviderRequest
from tests.fixtures.function_provider import FunctionProvider, Reply

BIN = Path(sys.executable).parent
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "mcp_servers" / "fixture_server.py"


def fixture_server(kind: str, *args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FIXTURE), kind, *args]}


def time_server() -> dict[str, Any]:
    return {"command": str(BIN / "mcp-server-time")}


@dataclass
class Person:
    """The UI bridge's far end: answers permission questions in order, records each one."""

    answers: list[str] = field(default_factory=list[str])
    asked: list[PermissionPrompt] = field(default_factory=list[PermissionPrompt])
    notices: list[str] = field(default_factory=list[str])
    confirms: list[bool | None] = field(default_factory=list[bool | None])
    """answers to `confirm` questions, in order (then None: no answer)"""
    confirmed: list[str] = field(default_factory=list[str])

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        self.asked.append(prompt)
        decision = self.answers.pop(0) if self.answers else "deny"
        rule = prompt.suggested_rule if decision == "allow_always" else None
        return PermissionAnswer(decision, "tester", rule=rule)

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        return None

    async def confirm(self, title: str, message: str = "") -> bool | None:
        self.confirmed.append(f"{title} {message}")
        return self.confirms.pop(0) if self.confirms else None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        return default

    async def notify(self, title: str, message: str = "") -> None:
        self.notices.append(f"{title}: {message}")


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("SHARD_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return home


async def make_agent(
    tmp_path: Path,
    servers: dict[str, Any],
    fn: Callable[[ProviderRequest, int], Reply],
    *,
    person: Person | None = None,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    agent_id: str = "mcp-agent",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    trust_project: bool = False,
) -> tuple[Agent, FunctionProvider]:
    work = cwd or tmp_path / "work"
    work.mkdir(exist_ok=True)
    provider = FunctionProvider(fn)

    def install(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda _model: provider)

    agent = await create_agent(
        cwd=work,
        model="fn/test",
        home=tmp_path / "home",
        config=ShardConfig.model_validate({"mcpServers": servers}),
        env=env if env is not None else {"PATH": str(BIN) + ":/usr/bin:/bin"},
        ui=person,
        allow=allow,
        deny=deny,
        agent_id=agent_id,
        extensions=[("test.provider", install)],
        trust_project=trust_project,
    )
    return agent, provider


def tool_text(agent: Agent, index: int = -1) -> tuple[str, bool]:
    """The text and is_error of the `index`-th tool result in the session."""
    from shard_core.types import ToolResultEntry

    results = [e for e in agent.session.store.entries if isinstance(e, ToolResultEntry)]
    result = results[index].details.result
    return "\n".join(getattr(b, "text", "") for b in result.content), result.is_error
