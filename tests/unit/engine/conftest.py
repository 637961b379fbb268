"""Shared fixtures for engine tests: a temp workspace, an allow-all gate, a session factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import PermissionOutcome, PermissionQuery
from shard_core.engine.registry import ToolRegistryImpl
from shard_core.engine.session import AgentSession, SessionConfig
from shard_core.engine.session_store import SessionStore
from shard_core.tools import builtin_tools
from shard_core.types import Allow, Decision
from tests.fixtures.function_provider import FunctionProvider


class AllowAllGate:
    def __init__(self) -> None:
        self.queries: list[PermissionQuery] = []

    def evaluate(self, query: PermissionQuery) -> Decision:
        return Allow(rule="test")

    async def authorize(self, query: PermissionQuery) -> PermissionOutcome:
        self.queries.append(query)
        return PermissionOutcome(Allow(rule="test"), "rule", "test")


class BuildMode:
    name = "build"
    description = "all tools"

    def filter_tools(self, tools: Any) -> list[Any]:
        return list(tools)

    def prompt_section(self, ctx: Any) -> str | None:
        return None

    def vote(self, tool: Any, input: Any) -> Decision | None:
        return None

    def on_turn_end(self, message: Any, ctx: Any) -> Any:
        return None


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def make_session(tmp_path: Path, workspace: Path) -> Iterator[Callable[..., AgentSession]]:
    stores: list[SessionStore] = []

    def make(provider: FunctionProvider, **kwargs: Any) -> AgentSession:
        store = kwargs.pop("store", None) or SessionStore.create(tmp_path / "sessions", workspace)
        stores.append(store)
        tools = ToolRegistryImpl()
        for tool in builtin_tools():
            tools.register(tool)
        return AgentSession(
            SessionConfig(agent_id="agent-test", cwd=workspace, roots=[workspace], **kwargs),
            store=store,
            provider=provider,
            tools=tools,
            modes={"build": BuildMode()},
            gate=AllowAllGate(),
            stable_sections=[],
        )

    yield make
    for store in stores:
        store.close()
