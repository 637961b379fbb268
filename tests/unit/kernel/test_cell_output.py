"""CellOutput: a tool call shows as a running card at once and its result replaces it in place."""

from __future__ import annotations

from typing import Any

from shard_core.protocol.events import ToolCallEvent, ToolResultEvent
from shard_core.types import ToolCallBlock, ToolResult
from shard_kernel.cell_output import RENDER_MIME, CellOutput

Sent = list[tuple[str, dict[str, Any]]]


def record() -> tuple[CellOutput, Sent]:
    sent: Sent = []
    return CellOutput(lambda kind, content: sent.append((kind, content))), sent


def call(seq: int, call_id: str = "c1") -> ToolCallEvent:
    block = ToolCallBlock(id=call_id, name="bash", input={"command": "sleep 3"})
    return ToolCallEvent(agent_id="agent-1", seq=seq, ts=100.0, turn_id="t", call=block)


def result(seq: int, call_id: str = "c1") -> ToolResultEvent:
    return ToolResultEvent(
        agent_id="agent-1",
        seq=seq,
        ts=103.0,
        turn_id="t",
        tool_call_id=call_id,
        name="bash",
        entry_id="e",
        result=ToolResult.ok("done"),
    )


def test_a_call_is_a_running_card_that_its_result_replaces_in_place() -> None:
    output, sent = record()
    output.handle(call(1))
    output.handle(result(2))
    assert [kind for kind, _ in sent] == ["display_data", "update_display_data"]
    first, second = (content for _, content in sent)
    assert first["transient"] == second["transient"] == {"display_id": "shard-tool-c1"}
    assert first["data"]["text/plain"] == "running bash…"
    assert first["data"][RENDER_MIME]["event"]["type"] == "tool_call"
    assert first["data"][RENDER_MIME]["event"]["call"]["name"] == "bash"
    assert second["data"][RENDER_MIME]["event"]["type"] == "tool_result"
    assert second["data"][RENDER_MIME]["event"]["tool_call_id"] == "c1"


def test_a_result_without_a_card_gets_its_own_output() -> None:
    output, sent = record()
    output.handle(call(1, "c1"))
    output.handle(result(2, "c2"))  # e.g. a call aborted before its tool_call was published
    assert [kind for kind, _ in sent] == ["display_data", "display_data"]
    assert sent[1][1]["transient"] == {"display_id": "shard-tool-c2"}
