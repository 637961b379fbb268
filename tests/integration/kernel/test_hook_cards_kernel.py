"""A hook's run in a real kernel: the cell shows it as a card (Shard's render MIME and a
text/plain line a console prints), every attached client gets its `hook_run` event, and
`/hooks` lists the hook and the run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel
from tests.integration.kernel.test_prompt_commands_kernel import _cell  # pyright: ignore[reportPrivateUsage]

SAY = "import json, sys; json.load(sys.stdin); print(json.dumps({'systemMessage': 'ls is fine'}))"


def test_a_hook_run_is_a_card_in_the_cell_and_an_event_for_every_client(
    start_kernel: StartKernel, jupyter_dirs: Path, workspace: Path
) -> None:
    script = workspace / "say.py"  # the hook runs sandboxed: the workspace is what it sees
    script.write_text(SAY, encoding="utf-8")
    command = f"{sys.executable} {script}"
    config = {"hooks": {"PreToolUse": [{"matcher": "ls", "hooks": [{"command": command}]}]}}
    folder = jupyter_dirs / "xdg" / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    steps: list[dict[str, Any]] = [
        {"text": "Listing.", "tool_calls": [{"name": "ls", "input": {"path": "."}}]},
        {"text": "Listed."},
    ]
    _, kc = start_kernel(steps)
    shown, reply = _cell(kc, "list the files")
    assert reply["content"]["status"] == "ok"
    plain = [
        m["content"]["data"]["text/plain"]
        for m in shown
        if m["msg_type"] == "display_data" and "hook" in m["content"]["data"]["text/plain"]
    ]
    assert len(plain) == 1, plain
    assert plain[0].startswith(f"hook PreToolUse (ls) `{command}`: none, exit 0, ")
    assert plain[0].endswith("\nls is fine")

    chat = AgentClient(kc, "chat-tab")  # attached later: its snapshot carries the run
    chat.attach(label="chat")
    [event] = [e for e in chat.replies[0]["events"] if e["type"] == "hook_run"]
    assert event["run"]["event"] == "PreToolUse"
    assert event["run"]["system_message"] == "ls is fine"
    listing = chat.command({"type": "slash", "text": "/hooks"})
    assert listing["ok"], listing
    chat.wait_for(lambda: any(e["type"] == "command_output" for e in chat.events))
    [output] = [e for e in chat.events if e["type"] == "command_output"]
    assert f"- PreToolUse `ls`: `{command}` (60 s, config.json)" in output["markdown"]
    assert "**Recent runs**" in output["markdown"]
