"""`todo_write` over `shard acp`: each successful call is an ACP `plan` update with the whole
list (done items `completed`); a call with a duplicate id sends none."""

from __future__ import annotations

from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script


def _todos(*items: tuple[str, str, str]) -> dict[str, object]:
    todos = [{"id": i, "content": c, "status": s} for i, c, s in items]
    return {"name": "todo_write", "input": {"todos": todos}}


async def test_todo_write_is_an_acp_plan_update(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    steps = [
        {"tool_calls": [_todos(("a", "Fix add", "in_progress"), ("b", "Run tests", "pending"))]},
        {"tool_calls": [_todos(("a", "Fix add", "done"), ("a", "Run tests", "pending"))]},
        {"tool_calls": [_todos(("a", "Fix add", "done"), ("b", "Run tests", "in_progress"))]},
        {"text": "done"},
    ]
    host = AcpHost()
    async with acp_agent(
        host, acp_env, "--model", write_script(tmp_path, steps), stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("do it"))
    assert response.stop_reason == "end_turn"
    plans = [[(e.content, e.status) for e in u.entries] for u in host.of("plan")]
    assert plans == [
        [("Fix add", "in_progress"), ("Run tests", "pending")],
        [("Fix add", "completed"), ("Run tests", "in_progress")],
    ]
    # a fresh process loads the session: its replay ends with the list as it was left
    second = AcpHost()
    async with acp_agent(
        second, acp_env, "--model", write_script(tmp_path, steps), stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
    replayed = [[(e.content, e.status) for e in u.entries] for u in second.of("plan")]
    assert replayed == [[("Fix add", "completed"), ("Run tests", "in_progress")]]
