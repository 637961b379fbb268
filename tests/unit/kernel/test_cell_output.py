"""CellOutput: a tool call shows as a running card at once (with its progress, as it comes) and its
result replaces it in place."""

from __future__ import annotations

from typing import Any

from shard_core.protocol.events import ToolCallEvent, ToolResultEvent, ToolUpdateEvent
from shard_core.types import TextBlock, ToolCallBlock, ToolResult
from shard_core.types.render import ProgressDescriptor, TextDescriptor
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


def test_the_running_card_shows_the_tools_progress_until_the_result() -> None:
    partial = ToolResult(
        content=[TextBlock(text="[stdout]\ntick 0\ntick 1")],
        render=[
            ProgressDescriptor(label="bash: running 1 s", current=1),
            TextDescriptor(text="tick 0\ntick 1"),
        ],
    )
    update = ToolUpdateEvent(
        agent_id="agent-1", seq=2, ts=101.0, turn_id="t", tool_call_id="c1", name="bash",
        partial=partial,
    )  # fmt: skip
    output, sent = record()
    output.handle(update)  # no card for it (yet): nothing to update
    assert sent == []
    output.handle(call(1))
    output.handle(update)
    output.handle(result(3))
    assert [kind for kind, _ in sent] == [
        "display_data",
        "update_display_data",
        "update_display_data",
    ]
    running = sent[1][1]
    assert running["transient"] == {"display_id": "shard-tool-c1"}
    assert running["data"]["text/plain"] == "running bash…\ntick 1"
    payload = running["data"][RENDER_MIME]
    assert payload["event"]["type"] == "tool_call"  # still the running card
    assert payload["update"]["type"] == "tool_update"
    assert payload["descriptors"][0]["kind"] == "progress"
    assert sent[2][1]["data"][RENDER_MIME]["event"]["type"] == "tool_result"
