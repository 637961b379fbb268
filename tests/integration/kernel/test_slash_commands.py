"""Slash commands through the agent protocol: a `slash` command on the `shard` comm runs a
bundled command, the kernel's `/status` or a third-party extension's, and every attached client
gets its output as a `command_output` event (the chat tab and the widget render it); a cell
shows it as its own display. `list_commands` names them all."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

EXTENSION = Path(__file__).resolve().parents[2] / "fixtures" / "extensions" / "greeter_command.py"


def _with_greeter(jupyter_dirs: Path) -> None:
    folder = jupyter_dirs / "shard-home" / "extensions"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXTENSION, folder / EXTENSION.name)


def _shell_reply(kc: Any, msg_id: str) -> dict[str, Any]:
    while True:
        reply: dict[str, Any] = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def _outputs(client: AgentClient, kind: str) -> list[dict[str, Any]]:
    return [e for e in client.events if e["type"] == kind]


def test_a_slash_command_over_the_comm_is_an_event_every_client_sees(
    start_kernel: StartKernel, jupyter_dirs: Path
) -> None:
    _with_greeter(jupyter_dirs)
    km, kc = start_kernel([{"text": "hi"}])
    chat = AgentClient(kc, "chat-tab")
    chat.attach(label="alice · chat")
    kc_b = another_client(km)
    try:
        watcher = AgentClient(kc_b, "watcher")
        watcher.attach(role="observer")

        reply = chat.command({"type": "slash", "id": "c1", "text": "/status"})
        assert (reply["command_id"], reply["command"], reply["ok"]) == ("c1", "slash", True)
        assert (
            "| clients | 1 interactive (alice · chat), 1 observer (watcher) |" in (reply["message"])
        )
        event = chat.wait_event("command_output")
        assert (event["command"], event["ok"], event["client_id"], event["label"]) == (
            "/status",
            True,
            "chat-tab",
            "alice · chat",
        )
        assert event["markdown"] == reply["message"]
        assert watcher.wait_event("command_output")["seq"] == event["seq"]

        greeted = chat.command({"type": "slash", "text": "/greet Ada Lovelace"})
        assert greeted["message"] == "Hello, Ada Lovelace: greeted by a test extension."
        helped = chat.command({"type": "slash", "text": "/help"})["message"]
        assert "| `/greet` | greets NAME " in helped
        assert "(extension extensions/greeter\\_command\\.py) |" in helped.replace("\\/", "/")
        assert "| `/status` | status\\, mode\\, model" in helped

        unknown = chat.command({"type": "slash", "text": "/nope"})
        assert (unknown["ok"], unknown["message"]) == (False, "unknown command /nope; try /help")
        chat.wait_for(lambda: len(_outputs(chat, "command_output")) == 4)
        assert _outputs(chat, "command_output")[-1]["ok"] is False

        refused = watcher.command({"type": "slash", "text": "/mode plan"})
        assert (refused["ok"], refused["message"]) == (False, "observers cannot run commands")

        listed = chat.command({"type": "list_commands"})["data"]["commands"]
        names = [c["name"] for c in listed]
        assert names == sorted(names)
        assert {"/greet", "/status", "/help", "/mode", "/extensions", "/title"} <= set(names)
        by_name = {c["name"]: c for c in listed}
        assert by_name["/greet"]["extension"] == "extensions/greeter_command.py"
        assert by_name["/status"]["extension"] == "shard.kernel"
        assert by_name["/mode"]["extension"] == "shard.commands"
    finally:
        kc_b.stop_channels()


def test_a_cell_runs_an_extension_command_and_completes_it(
    start_kernel: StartKernel, jupyter_dirs: Path
) -> None:
    """A cell's command shows as the cell's own display (no comm_msg under an execute_request:
    plain clients validate a cell's IOPub); completion offers the extension's command."""
    _with_greeter(jupyter_dirs)
    _, kc = start_kernel([{"text": "hi"}])
    msg_id = kc.execute("/greet cell")
    shown: list[dict[str, Any]] = []
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        shown.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    kinds = [m["msg_type"] for m in shown]
    assert "comm_msg" not in kinds
    [display] = [m for m in shown if m["msg_type"] == "display_data"]
    assert display["content"]["data"]["text/markdown"] == (
        "Hello, cell: greeted by a test extension."
    )
    assert _shell_reply(kc, msg_id)["content"]["status"] == "ok"

    reply = _shell_reply(kc, kc.complete("/gre", 4))
    assert reply["content"]["matches"] == ["/greet"]
