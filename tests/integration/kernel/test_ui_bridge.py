"""An extension's `api.ui.select` asked over the wire: ui_request to every client, first answer
wins, ui_resolved names who decided, a late answer is told."""

from __future__ import annotations

import os
from pathlib import Path

from tests.integration.kernel.agent_client import AgentClient
from tests.integration.kernel.conftest import StartKernel, another_client

EXTENSION = """
from shard_core.types import ToolResult


class AskTool:
    name = "ask"
    description = "ask the person to pick a colour"
    input_schema = {"type": "object", "properties": {}}
    read_only = True

    def __init__(self, api):
        self.api = api

    async def execute(self, input, ctx):
        choice = await self.api.ui.select("Pick a colour", ["red", "green"], "for the theme")
        return ToolResult.ok(f"the person chose {choice}")


def extension(api):
    api.register_tool(AskTool(api))
"""


def test_select_over_the_wire(start_kernel: StartKernel, workspace: Path) -> None:
    extensions = Path(os.environ["SHARD_HOME"]) / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "ask.py").write_text(EXTENSION)
    km, kc_a = start_kernel([{"tool_calls": [{"name": "ask", "input": {}}]}, {"text": "Noted."}])
    kc_b = another_client(km)
    try:
        a = AgentClient(kc_a, "client-a")
        b = AgentClient(kc_b, "client-b")
        a.attach()
        b.attach(label="bob · Lab")  # answers name b by the label it attached with
        msg_id = kc_a.execute("ask me")
        request = b.wait_event("ui_request")
        assert (request["ui"], request["options"]) == ("select", ["red", "green"])
        reply = b.command(
            {"type": "ui_response", "request_id": request["request_id"], "value": "green",
             "client_id": "client-b"}
        )  # fmt: skip
        assert reply["ok"] is True
        late = a.command(
            {"type": "ui_response", "request_id": request["request_id"], "value": "red",
             "client_id": "client-a"}
        )  # fmt: skip
        assert late["ok"] is False
        assert late["message"] == "already decided by bob · Lab"
        resolved = a.wait_event("ui_resolved")
        assert {k: v for k, v in resolved.items() if k not in ("seq", "ts")} == {
            "type": "ui_resolved",
            "agent_id": "agent-test",
            "request_id": request["request_id"],
            "value": "green",
            "decided_by": "bob · Lab",
            "client_id": "client-b",
        }
        result = a.wait_event("tool_result")
        assert result["result"]["content"][0]["text"] == "the person chose green"
        content = kc_a.get_shell_msg(timeout=60)
        while content["parent_header"].get("msg_id") != msg_id:
            content = kc_a.get_shell_msg(timeout=60)
        assert content["content"]["status"] == "ok"
    finally:
        kc_b.stop_channels()
