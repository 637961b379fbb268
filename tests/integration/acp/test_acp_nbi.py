"""`shard acp` as notebook-intelligence 6.2's ACP agent, driven through NBI's own server API.

notebook-intelligence (NBI) runs in its own environment (tests/fixtures/nbi.py) in a real
JupyterLab server. Its ACP mode is configured as a user configures it: `acp_settings.enabled`
in `~/.jupyter/nbi/config.json`, the admin policy `NBI_ACP_MODE_POLICY` not force-off (its
default is force-off), and `NBI_ACP_AGENT_COMMAND` naming the agent. NBI 6.2 knows one ACP agent
type, Codex, and appends Codex's `-c key=value` overrides to whatever command is named, so the
command is `sh -c 'exec shard acp …' shard-acp`: the overrides land in `$1`, `$2`, which the
script does not pass on. The test speaks the WebSocket protocol NBI's chat panel speaks
(`/notebook-intelligence/copilot`): a chat request, the streamed answer, a tool-call card with
the edit's diff, the approval card for Shard's permission request, the approval sent back as
the panel sends it, and the edit on disk.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from tests.e2e.lab import LabServer
from tests.fixtures.nbi import nbi_python

STEPS = [
    {
        "text": "Marking the notes.",
        "tool_calls": [
            {
                "name": "edit",
                "input": {"path": "notes.txt", "old_string": "TODO", "new_string": "DONE"},
            }
        ],
    },
    {"text": "The notes are done.", "expect": {"last_tool_result_contains": "notes.txt"}},
]
WAIT = 180.0


@pytest.fixture
def nbi_lab(tmp_path: Path) -> Iterator[LabServer]:
    python = nbi_python()
    if not isinstance(python, Path):
        pytest.fail(python)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "nbi", "steps": STEPS}))
    home = tmp_path / "home"
    (home / ".jupyter" / "nbi").mkdir(parents=True)
    settings = {"acp_settings": {"enabled": True}}
    (home / ".jupyter" / "nbi" / "config.json").write_text(json.dumps(settings))
    model = f"scripted/{script}"
    shard = shlex.join([sys.executable, "-m", "shard_kernel.cli", "acp", "--model", model])
    env = {
        "HOME": str(home),
        "NBI_ACP_MODE_POLICY": "user-choice",
        "NBI_ACP_AGENT_COMMAND": shlex.join(["sh", "-c", f"exec {shard}", "shard-acp"]),
    }
    server = LabServer(tmp_path / "lab", env, python=str(python))
    server.start(timeout=240)
    yield server
    # NBI 6.2 does not stop its agent when the server stops: `shard acp` ends on its stdin's end
    assert server.stop(grace=30) == [], "processes left running after Lab stopped"


def chat_request(message_id: str, prompt: str) -> str:
    data = {"chatId": "chat-1", "prompt": prompt, "language": "python", "filename": ""}
    return json.dumps({"id": message_id, "type": "chat-request", "data": data})


async def nbi_contents(
    socket: WebSocketClientConnection, message_id: str
) -> AsyncIterator[dict[str, Any]]:
    """Each streamed item of one response (its `nbiContent`), until the response ends."""
    while True:
        raw = await asyncio.wait_for(socket.read_message(), WAIT)
        assert raw is not None, "NBI closed the WebSocket"
        message = json.loads(raw)
        if message.get("id") != message_id:
            continue
        if message["type"] == "stream-end":
            return
        for choice in message["data"].get("choices", []):
            content = choice.get("delta", {}).get("nbiContent")
            if content is not None:
                yield content


async def test_nbi_acp_mode_streams_shards_answer_and_asks_its_permission(
    nbi_lab: LabServer,
) -> None:
    notes = nbi_lab.root / "notes.txt"
    notes.write_text("TODO: ship\n")
    url = f"ws://127.0.0.1:{nbi_lab.port}/notebook-intelligence/copilot"
    request = HTTPRequest(url, headers={"Authorization": f"token {nbi_lab.token}"})
    socket = await websocket_connect(request)
    message_id = uuid.uuid4().hex
    text: list[str] = []
    cards: dict[str, dict[str, Any]] = {}
    asks: list[dict[str, Any]] = []
    on_disk_when_asked = ""
    try:
        await socket.write_message(chat_request(message_id, "mark the notes done"))
        async for item in nbi_contents(socket, message_id):
            if item["type"] == "markdown-part" and item.get("content"):
                text.append(item["content"])
            elif item["type"] == "tool-call":
                cards[item["content"]["id"]] = item["content"]
            elif item["type"] == "confirmation":
                asks.append(item["content"])
                on_disk_when_asked = notes.read_text()
                answer = item["content"]["confirmArgs"]  # what the panel's Approve sends
                reply = {"id": answer["id"], "type": "chat-user-input", "data": answer["data"]}
                await socket.write_message(json.dumps(reply))
    finally:
        socket.close()
    assert "".join(text) == "Marking the notes.The notes are done."
    [ask] = asks
    assert ask["title"] == "Codex tool call"  # NBI 6.2 names its one ACP agent type so
    assert on_disk_when_asked == "TODO: ship\n"
    [card] = cards.values()
    assert (card["title"], card["kind"], card["status"]) == ("edit: notes.txt", "edit", "completed")
    [diff] = card["diffs"]
    assert diff["path"] == str(notes)
    assert {"type": "add", "content": "DONE: ship"} in diff["lines"]
    assert {"type": "remove", "content": "TODO: ship"} in diff["lines"]
    assert notes.read_text() == "DONE: ship\n"
