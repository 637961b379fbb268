"""A call's tool_updates in the AgentWidget: one event per run (the newest state), as `update`."""

from __future__ import annotations

from typing import Any

from shard_widgets import AgentWidget
from shard_widgets._snapshot import transcript
from tests.unit.widgets._support import comm_of, event


def partial(text: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": text}],
        "is_error": False,
        "render": [{"kind": "text", "text": text, "format": "plain"}],
        "details": {},
    }


def text_of(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


def update(seq: int, text: str, call: str = "c1") -> dict[str, Any]:
    return event(
        "tool_update", seq, turn_id="t1", tool_call_id=call, name="python_exec",
        partial=partial(text),
    )  # fmt: skip


def test_a_calls_updates_take_one_place_in_the_transcript() -> None:
    widget = AgentWidget()
    comm_of(widget).clear()
    widget.push(update(1, "one"))
    widget.push(update(2, "two"))
    widget.push_many([update(3, "three"), update(4, "four")])
    widget.push(update(5, "other", call="c2"))
    shown = [(e["seq"], e["tool_call_id"], text_of(e["partial"])) for e in widget.events]
    assert shown == [(1, "c1", "four"), (5, "c2", "other")]
    sent = comm_of(widget).custom()
    assert sent[0]["type"] == "append"
    ops = [(m["type"], m["seq"], text_of(m["event"]["partial"])) for m in sent[1:3]]
    assert ops == [("update", 1, "two"), ("update", 1, "four")]
    assert sent[3]["type"] == "append"
    widget.push(update(3, "replayed"))  # already inside the coalesced run: ignored
    assert text_of(widget.events[0]["partial"]) == "four"


def test_the_saved_transcript_drops_updates_of_finished_calls() -> None:
    result = event(
        "tool_result", 3, turn_id="t1", tool_call_id="c1", name="python_exec", entry_id="e3",
        result=partial("done"),
    )  # fmt: skip
    kept, omitted = transcript([update(1, "so far"), update(2, "running", call="c2"), result])
    assert [(e["type"], e["seq"]) for e in kept] == [("tool_update", 2), ("tool_result", 3)]
    assert omitted == 0
