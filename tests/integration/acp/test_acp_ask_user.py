"""`ask_user` over `shard acp`: the question is a session/request_permission whose options are
the choices; the host's pick is the model's answer, named by the host."""

from __future__ import annotations

from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

ASK = {"question": "Which database?", "choices": ["sqlite", "postgres"], "multi": True}


async def test_the_host_answers_a_question(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    steps = [
        {"tool_calls": [{"name": "ask_user", "input": ASK}]},
        {"text": "ok", "expect": {"last_tool_result_contains": "answered: postgres"}},
    ]
    host = AcpHost(answer="choice-1")
    script = write_script(tmp_path, steps)
    async with acp_agent(host, acp_env, "--model", script, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("ask"))
    assert response.stop_reason == "end_turn"
    (ask,) = host.asks
    assert ask.tool_call.title == "Which database? (one choice here)"
    assert [(o.option_id, o.name) for o in ask.options] == [
        ("choice-0", "sqlite"),
        ("choice-1", "postgres"),
    ]
    said = " ".join(str(u) for u in host.updates)
    assert "answered: postgres" in said
    assert "[scripted demo] expected" not in said
