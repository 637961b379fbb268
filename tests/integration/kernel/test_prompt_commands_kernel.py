"""Prompt commands in a real kernel: a cell `/name ARGS` runs the expanded body as that cell's
turn (scripted provider), a `slash` command on the comm starts it for every client, and
completion and `list_commands` offer it with its argument hint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel

REVIEW = """---
description: Review a file
argument-hint: FILE
---
Please review $1 carefully ($ARGUMENTS)."""


def _logged_prompts(jupyter_dirs: Path) -> str:
    logs = (jupyter_dirs / "shard-home").rglob("*.jsonl")
    return "\n".join(p.read_text(encoding="utf-8") for p in logs)


def _cell(kc: Any, code: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    msg_id = kc.execute(code)
    shown: list[dict[str, Any]] = []
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        shown.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    while True:
        reply: dict[str, Any] = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return shown, reply


def test_a_prompt_command_cell_is_a_turn_and_is_listed(
    start_kernel: StartKernel, jupyter_dirs: Path
) -> None:
    folder = jupyter_dirs / "xdg" / "shard" / "commands" / "code"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text(REVIEW, encoding="utf-8")
    _, kc = start_kernel([{"text": "looks fine"}, {"text": "second look"}])

    shown, reply = _cell(kc, "/code:review app.py now")
    assert reply["content"]["status"] == "ok"
    outputs = repr([m["content"] for m in shown if m["msg_type"] != "status"])
    assert "looks fine" in outputs
    assert "Please review app.py carefully (app.py now)." in _logged_prompts(jupyter_dirs)

    chat = AgentClient(kc, "chat-tab")
    chat.attach(label="chat")
    sent = chat.command({"type": "slash", "text": "/code:review lib.py"})
    assert (sent["ok"], sent["message"]) == (True, "`/code:review` sent as the prompt.")
    chat.wait_for(lambda: any(e["type"] == "turn_end" for e in chat.events))
    assert "Please review lib.py carefully (lib.py)." in _logged_prompts(jupyter_dirs)

    listed = chat.command({"type": "list_commands"})["data"]["commands"]
    by_name = {c["name"]: c for c in listed}
    assert by_name["/code:review"] == {
        "name": "/code:review",
        "description": "Review a file",
        "extension": "shard.prompt_commands",
        "hint": "FILE",
    }
    matches = _cell_complete(kc, "/code:r")
    assert matches == ["/code:review"]
    helped, _ = _cell(kc, "/help")
    assert "/code:review" in repr([m["content"] for m in helped if m["msg_type"] != "status"])


def _cell_complete(kc: Any, prefix: str) -> list[str]:
    msg_id = kc.complete(prefix, len(prefix))
    while True:
        reply: dict[str, Any] = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]["matches"]
