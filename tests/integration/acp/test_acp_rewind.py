"""Checkpoints over `shard acp`: `/rewind`, `/changes` and `/revert` are available commands with
their argument hints; the same table, review and rewind result every other surface shows arrive
as message chunks; the file is restored byte for byte; a bad turn is a clear message."""

from __future__ import annotations

from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script


async def test_rewind_and_changes_as_acp_commands(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    before = (project / "calc.py").read_bytes()
    fix = {"path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}
    steps = [{"tool_calls": [{"name": "edit", "input": fix}]}, {"text": "fixed"}]
    host = AcpHost()
    async with acp_agent(
        host, acp_env, "--model", write_script(tmp_path, steps), stderr=tmp_path / "stderr"
    ) as (conn, _p, _i):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        said: list[str] = []

        async def run(text: str) -> str:
            response = await conn.prompt(session_id=new.session_id, prompt=text_prompt(text))
            assert response.stop_reason == "end_turn"
            whole = host.text()
            said.append(whole[len("".join(said)) :])
            return said[-1]

        await run("fix add")
        assert b"return a + b" in (project / "calc.py").read_bytes()
        [commands] = host.of("available_commands_update")
        hints = {
            c.name: c.input.root.hint if c.input else None for c in commands.available_commands
        }
        assert hints["rewind"] == "[TURN [--code|--conversation|--both] [--force|--keep] | undo]"
        assert hints["changes"] == "[TURN]"
        assert hints["revert"] == "PATH [--turn N] [--hunk K | --cell ID]"

        assert "| 1 | fix add | 1 |" in await run("/rewind")
        changes = await run("/changes 1")
        assert "**calc.py** (modified, +1 -1)" in changes
        assert "-def add(a, b): return a - b\n+def add(a, b): return a + b" in changes
        rewound = await run("/rewind 1 --code")
        assert rewound.startswith("**Rewound files** to before entry")
        assert "Restored: `calc.py`" in rewound
        assert (project / "calc.py").read_bytes() == before
        refused = await run("/rewind 9")
        assert "unknown turn 9: this session has turns 1 to 1" in refused
        assert "ConfigError" not in refused  # the message, not the exception's class
        undone = await run("/rewind undo")
        assert undone.startswith("**Rewound files**")
        assert b"return a + b" in (project / "calc.py").read_bytes()
