"""`/grants`: both scopes listed (this agent's, this workspace's), and revocable by rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from shard_core.engine.config import ShardConfig
from shard_core.sdk import create_agent
from shard_kernel.slash import run_slash

NO_KERNEL = cast(Any, None)  # /grants never touches the kernel


async def test_grants_lists_and_revokes_both_scopes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("SHARD_HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()

    async def agent_in_ws() -> Any:
        return await create_agent(
            cwd=ws, model="scripted/demo", home=home, config=ShardConfig(), env={}
        )

    first, second = await agent_in_ws(), await agent_in_ws()
    try:
        assert first.gate.workspace_grants is not None
        first.gate.workspace_grants.add("Edit(src/**)", "alice")
        second.gate.grants.add("Bash(pytest:*)", "bob")

        listing = await run_slash(NO_KERNEL, second, "/grants")
        assert "- `Bash(pytest:*)` (scope: this agent; granted by bob)" in listing
        assert f"- `Edit(src/**)` (scope: workspace {ws.resolve()}; granted by alice)" in listing

        revoked = await run_slash(NO_KERNEL, second, "/grants revoke Edit(src/**)")
        assert revoked == f"Revoked `Edit(src/**)` (scope: workspace {ws.resolve()})."
        assert first.gate.workspace_grants.grants() == []
        assert "Edit(src/**)" not in await run_slash(NO_KERNEL, first, "/grants")
        assert await run_slash(NO_KERNEL, first, "/grants revoke Edit(x)") == "No grant `Edit(x)`."
    finally:
        await first.close()
        await second.close()
