"""A goal on ACP session/new (`_meta.shard.goal`): the session has it (`/goal` says so), and one
over the cap is an invalid-params error naming the limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from shard_core.capabilities.goals import GOAL_MAX_CHARS
from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

GOAL = "make every test pass"


async def test_a_goal_on_session_new(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    host = AcpHost()
    script = write_script(tmp_path, [{"text": "ok"}])
    async with acp_agent(host, acp_env, "--model", script, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        with pytest.raises(RequestError) as refused:
            await conn.new_session(
                cwd=str(project), mcp_servers=[], shard={"goal": "x" * (GOAL_MAX_CHARS + 1)}
            )
        assert f"the limit is {GOAL_MAX_CHARS}" in str(refused.value.data)
        new = await conn.new_session(cwd=str(project), mcp_servers=[], shard={"goal": GOAL})
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("/goal"))
    said = " ".join(str(u) for u in host.updates)
    assert f"Goal (active): {GOAL}" in said
