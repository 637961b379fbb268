"""`/title` in a shard cell: show the session's title, set it (logged; the status says it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import Event, StatusEvent
from shard_core.sdk import create_agent
from shard_core.types import CheckpointEntry, TitleCheckpoint
from shard_kernel.slash import command_names, run_slash

NO_KERNEL = cast(Any, None)  # /title never touches the kernel


async def test_title_shows_and_sets_the_session_title(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = await create_agent(
        cwd=ws, model="scripted/demo", home=tmp_path / "home", config=ShardConfig(), env={}
    )
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        assert await run_slash(NO_KERNEL, agent, "/title") == "No title yet."
        assert await run_slash(NO_KERNEL, agent, "/title Login [flake]") == (
            "Title set: Login \\[flake\\]"
        )
        assert await run_slash(NO_KERNEL, agent, "/title") == "Title: Login \\[flake\\]"
        titles = [
            e.details
            for e in agent.session.store.entries
            if isinstance(e, CheckpointEntry) and isinstance(e.details, TitleCheckpoint)
        ]
        assert titles == [TitleCheckpoint(title="Login [flake]", source="user")]
        assert [e.title for e in seen if isinstance(e, StatusEvent)] == ["Login [flake]"]
        assert "/title" in command_names(agent)
        assert "`/title`" in await run_slash(NO_KERNEL, agent, "/help")
    finally:
        await agent.close()
