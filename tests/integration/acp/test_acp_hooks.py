"""`shard acp` and command hooks: a hook's run reaches the ACP host as a finished `tool_call`
of kind `other` (what an editor draws as a card), titled with its event and command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.integration.acp.conftest import AcpHost, acp_agent, text_prompt, write_script

BLOCK = (
    "import json, sys; json.load(sys.stdin); "
    "print('no listing today', file=sys.stderr); sys.exit(2)"
)


async def test_a_hook_run_is_a_finished_tool_call_card(
    project: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    script = project / "block.py"  # the hook runs sandboxed: the workspace is what it sees
    script.write_text(BLOCK, encoding="utf-8")
    command = f"{sys.executable} {script}"
    config = {"hooks": {"PreToolUse": [{"matcher": "LS", "hooks": [{"command": command}]}]}}
    folder = Path(acp_env["XDG_CONFIG_HOME"]) / "shard"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    steps = [{"text": "Listing.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]}]
    model = write_script(tmp_path, [*steps, {"text": "Blocked, then."}])
    host = AcpHost()
    async with acp_agent(host, acp_env, "--model", model, stderr=tmp_path / "stderr") as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=new.session_id, prompt=text_prompt("list"))
    assert response.stop_reason == "end_turn"
    starts = host.of("tool_call")
    [card] = [s for s in starts if s.tool_call_id.startswith("hook-")]
    title = f"hook PreToolUse: {command}"
    assert card.title == (title if len(title) <= 120 else title[:120] + "…")
    assert card.raw_input["command"] == command
    assert (card.kind, card.status) == ("other", "completed")
    text = card.content[0].content.text
    assert text.startswith(f"hook PreToolUse (ls) `{command}`: deny, exit 2, ")
    assert text.endswith(": no listing today")
    assert card.raw_input["decision"] == "deny"
    [ls] = [s for s in starts if s.title.startswith("ls")]
    [result] = [u for u in host.of("tool_call_update") if u.tool_call_id == ls.tool_call_id]
    assert result.status == "failed"


GATE = (
    "import json, sys; event = json.load(sys.stdin); "
    "sys.exit(0) if 'forbidden' not in event['prompt'] else "
    "(print('not that prompt', file=sys.stderr), sys.exit(2))"
)
FREEZE = (
    "import json, sys; json.load(sys.stdin); "
    "print(json.dumps({'continue': False, 'stopReason': 'release freeze'}))"
)


async def test_a_turn_a_hook_stopped_has_its_acp_stop_reason(
    project: Path, acp_env: dict[str, str], tmp_path: Path, agent_python: str
) -> None:
    """A prompt a UserPromptSubmit hook kept out of the session is `refusal`; a turn a Stop
    hook stopped after its reply is `end_turn`; both say `hook_stopped` in `_meta`."""
    hooks: dict[str, object] = {}
    for event, code in (("UserPromptSubmit", GATE), ("Stop", FREEZE)):
        script = project / f"{event.lower()}.py"
        script.write_text(code, encoding="utf-8")
        hooks[event] = [{"hooks": [{"command": f"{sys.executable} {script}"}]}]
    folder = Path(acp_env["XDG_CONFIG_HOME"]) / "shard"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    model = write_script(tmp_path, [{"text": "Hello once."}])
    host = AcpHost()
    stderr = tmp_path / "stderr"
    async with acp_agent(host, acp_env, "--model", model, stderr=stderr, python=agent_python) as (
        conn,
        _p,
        _i,
    ):
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        blocked = await conn.prompt(session_id=new.session_id, prompt=text_prompt("forbidden"))
        assert host.text() == ""  # the model never saw it
        stopped = await conn.prompt(session_id=new.session_id, prompt=text_prompt("hello"))
    assert blocked.stop_reason == "refusal"
    said = {"stopReason": "hook_stopped", "hook": "UserPromptSubmit", "reason": "not that prompt"}
    assert blocked.field_meta == {"shard": said}
    assert stopped.stop_reason == "end_turn"
    said = {"stopReason": "hook_stopped", "hook": "Stop", "reason": "release freeze"}
    assert stopped.field_meta == {"shard": said}
    assert host.text() == "Hello once."
    cards = [s for s in host.of("tool_call") if s.tool_call_id.startswith("hook-")]
    ran = [(c.raw_input["event"], c.raw_input["decision"]) for c in cards]
    assert ran == [("UserPromptSubmit", "block"), ("UserPromptSubmit", "none"), ("Stop", "stop")]
