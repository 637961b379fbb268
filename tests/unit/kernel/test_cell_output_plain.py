"""CellOutput for clients that print each display_data once and never apply an update (`jupyter
console`): they see every word once, while an updating client keeps one live output in place."""

from __future__ import annotations

from typing import Any

import pytest

from shard_core.protocol.events import MessageCompleteEvent, MessageDeltaEvent
from shard_core.types import AssistantMessage, TextBlock
from shard_core.types.errors import ConfigError
from shard_kernel.cell_output import RENDER_MIME, CellOutput, display_updates
from tests.unit.kernel.test_cell_output import Sent, call, record, result


def delta(seq: int, text: str) -> MessageDeltaEvent:
    return MessageDeltaEvent(agent_id="agent-1", seq=seq, ts=100.0, turn_id="t", delta=text)


def complete(seq: int, text: str) -> MessageCompleteEvent:
    message = AssistantMessage(content=[TextBlock(text=text)])
    return MessageCompleteEvent(
        agent_id="agent-1", seq=seq, ts=101.0, turn_id="t", entry_id="e", message=message
    )


def console(sent: Sent) -> list[str]:
    """What `jupyter console` prints: the text/plain of each display_data, nothing else (less
    the blank lines of empty ones)."""
    return [
        c["data"]["text/plain"] for k, c in sent if k == "display_data" and c["data"]["text/plain"]
    ]


def lab(sent: Sent) -> list[dict[str, Any]]:
    """What an updating client shows: its outputs after every update by display id."""
    outputs: list[dict[str, Any]] = []
    for kind, content in sent:
        display_id = content.get("transient", {}).get("display_id")
        if kind == "display_data":
            outputs.append({"id": display_id, "data": content["data"]})
        else:
            for output in outputs:
                if display_id is not None and output["id"] == display_id:
                    output["data"] = content["data"]
    return [o["data"] for o in outputs if o["data"]["text/plain"]]  # not the emptied ones


def test_a_streamed_reply_lands_whole_for_a_client_that_cannot_update() -> None:
    output = CellOutput(lambda kind, content: sent.append((kind, content)), interval=0.0)
    sent: Sent = []
    output.handle(delta(1, "ALPHA-START the first part"))
    output.handle(delta(2, " and the rest. OMEGA-END"))
    output.handle(complete(3, "ALPHA-START the first part and the rest. OMEGA-END"))
    assert console(sent) == ["ALPHA-START the first part and the rest. OMEGA-END"]
    [shown] = lab(sent)  # one output, not the live one and its successor
    assert shown["text/plain"] == "ALPHA-START the first part and the rest. OMEGA-END"
    assert shown[RENDER_MIME]["descriptors"][0]["text"] == shown["text/plain"]
    assert sent[0][0] == "display_data"
    assert RENDER_MIME in sent[0][1]["data"]  # the live display starts at the first chunk


def test_a_cards_result_lands_as_a_line_when_the_next_output_comes() -> None:
    output, sent = record()
    output.handle(call(1))
    output.handle(result(2))
    output.handle(complete(3, "Done."))
    assert console(sent)[0] == "running bash…"
    assert console(sent)[1].startswith("✓ bash")
    assert console(sent)[2] == "Done."
    kinds = [d[RENDER_MIME]["event"]["type"] for d in lab(sent) if "event" in d[RENDER_MIME]]
    assert kinds == ["tool_result"]  # the card was replaced, not repeated
    assert len(lab(sent)) == 2


def test_a_card_with_outputs_below_it_keeps_its_place() -> None:
    output, sent = record()
    output.handle(call(1, "c1"))
    output.handle(call(2, "c2"))
    output.handle(result(3, "c1"))
    output.finish()
    assert console(sent) == ["running bash…", "running bash…"]
    kinds = [d[RENDER_MIME]["event"]["type"] for d in lab(sent)]
    assert kinds == ["tool_result", "tool_call"]  # in place, above the second card


def test_a_stopped_turns_text_lands_when_the_cell_ends() -> None:
    output = CellOutput(lambda kind, content: sent.append((kind, content)), interval=0.0)
    sent: Sent = []
    output.handle(delta(1, "ALPHA-START half of it"))  # then the turn is interrupted
    output.finish()
    output.finish()  # the kernel's `finally` and a turn_end may both end it: once is enough
    assert console(sent) == ["ALPHA-START half of it"]
    assert [d["text/plain"] for d in lab(sent)] == ["ALPHA-START half of it"]


def test_plain_output_sends_no_update_and_each_piece_once() -> None:
    """`KERNEL_SHARD_OUTPUT=plain` (euporie's console fails on update_display_data): no live
    display, no update; the whole reply, the running line and the result, each an output."""
    sent: Sent = []
    output = CellOutput(lambda kind, content: sent.append((kind, content)), 0.0, updates=False)
    output.handle(delta(1, "ALPHA-START the first part"))
    output.handle(delta(2, " and the rest. OMEGA-END"))
    output.handle(call(3))
    output.handle(result(4))
    output.finish()
    assert {kind for kind, _ in sent} == {"display_data"}
    assert console(sent) == [
        "ALPHA-START the first part and the rest. OMEGA-END",
        "running bash…",
        "✓ bash\n  done",
    ]
    assert not output.updates


def test_the_output_kind_is_read_from_the_kernel_environment() -> None:
    assert display_updates({}) is True
    assert display_updates({"KERNEL_SHARD_OUTPUT": "live"}) is True
    assert display_updates({"KERNEL_SHARD_OUTPUT": " Plain "}) is False
    with pytest.raises(ConfigError, match=r"KERNEL_SHARD_OUTPUT='fancy'; use live"):
        display_updates({"KERNEL_SHARD_OUTPUT": "fancy"})
