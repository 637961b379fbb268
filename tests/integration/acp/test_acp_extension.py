"""A third-party extension in SHARD_HOME/extensions under `shard acp`: its command is in
`available_commands_update` (with its hint) and `/help`, and runs; its path tool is judged by
the gate as `read` is: allowed inside the workspace, denied by config.json's `Read(…)` rule,
asked outside the workspace unless its own `Peek(…)` rule allows it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

PEEK = Path(__file__).resolve().parents[2] / "fixtures" / "extensions" / "peek_tool.py"


async def test_an_extension_in_shard_home_has_its_command_and_its_rules(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    home = Path(acp_env["SHARD_HOME"])
    (home / "extensions").mkdir(parents=True)
    shutil.copy(PEEK, home / "extensions" / "peek_tool.py")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "allowed.txt").write_text("ALLOWED-OUTSIDE\n")
    (outside / "asked.txt").write_text("ASKED-OUTSIDE\n")
    rules = {"allow": [f"Peek({outside}/allowed.txt)"], "deny": ["Read(test_*.py)"]}
    config = Path(acp_env["XDG_CONFIG_HOME"]) / "shard"
    config.mkdir(parents=True)
    (config / "config.json").write_text(json.dumps({"permissions": rules}), encoding="utf-8")
    files = ["calc.py", "test_calc.py", str(outside / "allowed.txt"), str(outside / "asked.txt")]
    steps = [{"text": f"Peek {n}.", "tool_calls": [{"name": "peek", "input": {"file": f}}]}
             for n, f in enumerate(files)]  # fmt: skip
    model = write_script(tmp_path, [*steps, {"text": "Done."}])
    host = AcpHost(answer="reject_once")
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        [commands] = host.of("available_commands_update")
        by_name = {c.name: c for c in commands.available_commands}
        assert by_name["peek"].description.startswith("shows the first line of FILE")
        assert by_name["peek"].input is not None
        assert by_name["peek"].input.root.hint == "FILE"

        await conn.prompt(session_id=new.session_id, prompt=text_prompt("/help"))
        assert "/peek" in host.text()
        await conn.prompt(session_id=new.session_id, prompt=text_prompt("/peek calc.py"))
        assert "peek at calc.py" in host.text()

        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("peek"))
        assert response.stop_reason == "end_turn"
    assert [a.tool_call.raw_input for a in host.asks] == [{"file": files[3]}]  # asked, refused
    updates = [json.dumps(u.model_dump(mode="json")) for u in host.of("tool_call_update")]
    shown = "\n".join(updates)
    assert "A tiny calculator with one bug" in shown  # calc.py: read-only in the workspace
    assert "Read(test_*.py)" in shown  # test_calc.py: denied by the config's Read rule
    assert "ALLOWED-OUTSIDE" in shown  # allowed by its own rule
    assert "ASKED-OUTSIDE" not in shown
    assert "Done." in host.text()
