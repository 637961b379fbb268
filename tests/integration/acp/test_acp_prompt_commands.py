"""`shard acp` and prompt commands: listed in `available_commands_update` with the argument
hint, and a prompt `/name ARGS` is a turn whose user text is the expanded body."""

from __future__ import annotations

from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script


async def test_a_prompt_command_is_listed_and_runs_as_a_turn(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    folder = Path(acp_env["SHARD_HOME"]) / "commands"
    folder.mkdir(parents=True)
    (folder / "explain.md").write_text(
        "---\ndescription: Explain a topic\nargument-hint: TOPIC\n---\nExplain $ARGUMENTS simply.",
        encoding="utf-8",
    )
    model = write_script(tmp_path, [{"text": "Explained."}])
    host = AcpHost()
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        [commands] = host.of("available_commands_update")
        by_name = {c.name: c for c in commands.available_commands}
        assert by_name["explain"].description == "Explain a topic"
        assert by_name["explain"].input is not None
        assert by_name["explain"].input.root.hint == "TOPIC"
        assert by_name["recall"].input is not None
        assert by_name["recall"].input.root.hint == "QUERY"
        assert by_name["tasks"].input is None  # takes nothing: no hint
        response = await conn.prompt(
            session_id=new.session_id, prompt=text_prompt("/explain tide pools")
        )
        assert response.stop_reason == "end_turn"
        assert "Explained." in host.text()
    logs = Path(acp_env["SHARD_HOME"]).rglob("*.jsonl")
    assert "Explain tide pools simply." in "\n".join(p.read_text(encoding="utf-8") for p in logs)
