"""The widget's `/` commands: a `slash` message from the browser runs the command on a real
in-process agent (a third-party extension's command from a test file, a bundled one), the reply
carries the output and every widget of the agent gets the `command_output` event; a
`list_commands` message answers with the agent's commands. A controller without them says so."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from shard_core.engine.config import ShardConfig
from shard_kernel.inprocess import InProcessAgent
from shard_widgets import AgentWidget
from tests.fixtures.extensions import greeter_command
from tests.unit.widgets._support import comm_of


async def _reply(widget: AgentWidget, command_id: str) -> dict[str, Any]:
    for _ in range(500):
        replies = [m for m in comm_of(widget).custom() if m.get("command_id") == command_id]
        if replies:
            return replies[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no reply to {command_id}: {comm_of(widget).custom()}")


async def test_slash_and_list_commands_through_the_widget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    host = InProcessAgent(
        "t",
        cwd=ws,
        model="scripted/demo",
        home=tmp_path / "home",
        config=ShardConfig(),
        env={},
        extensions=[("test.greeter", greeter_command.extension)],
    )
    try:
        widget, other = host.widget(), host.widget()
        widget._handle_custom_msg({"type": "slash", "id": "c1", "text": "/greet Ada"}, [])
        reply = await _reply(widget, "c1")
        assert (reply["command"], reply["ok"]) == ("slash", True)
        assert reply["message"] == "Hello, Ada: greeted by a test extension."
        for seen in (widget, other):
            [event] = [e for e in seen.events if e["type"] == "command_output"]
            assert (event["text"], event["markdown"]) == ("/greet Ada", reply["message"])

        widget._handle_custom_msg({"type": "slash", "id": "c2", "text": "/mode"}, [])
        assert (await _reply(widget, "c2"))["message"].startswith("Mode: **build**")

        widget._handle_custom_msg({"type": "list_commands", "id": "c3"}, [])
        listed = (await _reply(widget, "c3"))["data"]["commands"]
        by_name = {c["name"]: c["extension"] for c in listed}
        assert by_name["/greet"] == "test.greeter"
        assert by_name["/help"] == "shard.commands"
        assert "/status" not in by_name  # the kernel's own: no kernel here
    finally:
        host.close()


def test_a_controller_without_commands_says_so() -> None:
    class Bare:
        def set_mode(self, mode: str) -> None: ...

    widget = AgentWidget(Bare())  # type: ignore[arg-type]
    widget._handle_custom_msg({"type": "slash", "id": "c1", "text": "/status"}, [])
    [reply] = comm_of(widget).custom()
    assert (reply["ok"], reply["message"]) == (
        False,
        "slash: this agent takes no / commands through its widget",
    )


async def test_a_prompt_command_through_the_widget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A markdown command of SHARD_HOME/commands is listed with its hint and sent as a prompt."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    commands = tmp_path / "home" / "commands" / "code"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 carefully.\n"
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    host = InProcessAgent(
        "t", cwd=ws, model="scripted/demo", home=tmp_path / "home", config=ShardConfig(), env={}
    )
    try:
        widget = host.widget()
        widget._handle_custom_msg({"type": "list_commands", "id": "l1"}, [])
        listed = (await _reply(widget, "l1"))["data"]["commands"]
        by_name = {c["name"]: c for c in listed}
        assert by_name["/code:review"] == {
            "name": "/code:review",
            "description": "Review a file",
            "extension": "shard.prompt_commands",
            "hint": "FILE",
        }
        widget._handle_custom_msg({"type": "slash", "id": "s1", "text": "/code:review app.py"}, [])
        reply = await _reply(widget, "s1")
        assert (reply["ok"], reply["message"]) == (True, "`/code:review` sent as the prompt.")
        starts: list[dict[str, Any]] = []
        for _ in range(3000):  # the turn it sent: its prompt is the command's body
            starts = [e for e in widget.events if e["type"] == "turn_start"]
            if starts:
                break
            await asyncio.sleep(0.01)
        assert [e["prompt"] for e in starts] == ["Review app.py carefully."]
    finally:
        host.close()
