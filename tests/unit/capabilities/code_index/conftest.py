"""Code index test helpers: an agent over a workspace with a function-driven provider."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_core.types import ToolResult, ToolResultEntry
from tests.fixtures.function_provider import FunctionProvider


async def make_agent(
    tmp_path: Path, provider: FunctionProvider, *, extensions: Sequence[Any] = (), **kw: Any
) -> Agent:
    def fn(api: ExtensionApi) -> None:
        api.register_provider("fn", lambda model: provider)

    return await create_agent(
        cwd=tmp_path / "ws",
        model="fn/any",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={"HOME": str(tmp_path / "user")},
        extensions=[("test.fn", fn), *extensions],
        allow=["edit", "write", "bash"],
        **kw,
    )


def results(agent: Agent) -> list[tuple[str, ToolResult]]:
    return [
        (e.details.name, e.details.result)
        for e in agent.session.store.branch()
        if isinstance(e, ToolResultEntry)
    ]
