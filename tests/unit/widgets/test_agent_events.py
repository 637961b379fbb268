"""Events → AgentWidget: the bounded transcript, delta coalescing, and the state traits."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from shard_core.protocol import MessageDeltaEvent, SnapshotReply, StatusEvent
from shard_widgets import AgentWidget
from tests.unit.widgets._support import (
    comm_of,
    delta,
    event,
    permission_request,
    permission_resolved,
)

USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "cache_read_tokens": 0,
    "cache_write_tokens": 0,
    "cost_usd": 0.01,
}


def status(seq: int, value: str) -> dict[str, Any]:
    return event("status", seq, status=value, mode="build", model="old", demo=False, message=None)


def normalized(e: dict[str, Any]) -> dict[str, Any]:
    """An event as the widget stores it: every field present."""
    return {"entry_id": None, "images": [], **e} if e["type"] == "turn_start" else e


def test_streamed_deltas_coalesce_into_one_event() -> None:
    widget = AgentWidget()
    comm_of(widget).clear()
    start = event("turn_start", 0, turn_id="t1", prompt="hi")
    for e in (start, delta(1, "Hel"), delta(2, "lo, "), delta(3, "wörld 😀")):
        widget.push(e)
    assert widget.events == [normalized(start), delta(1, "Hello, wörld 😀")]
    assert comm_of(widget).custom() == [
        {"type": "append", "events": [normalized(start)], "max_events": 2000},
        {"type": "append", "events": [delta(1, "Hel")], "max_events": 2000},
        {"type": "delta", "seq": 1, "delta": "lo, ", "length": 7},
        {"type": "delta", "seq": 1, "delta": "wörld 😀", "length": 15},  # 😀 is two UTF-16 units
    ]
    assert comm_of(widget).updates() == []  # no whole-list resync while streaming


def test_runs_break_on_channel_turn_or_tool_call() -> None:
    widget = AgentWidget()
    widget.push_many(
        [
            delta(0, "a"),
            delta(1, "b", channel="thinking"),
            delta(2, "c", channel="thinking"),
            delta(3, "{", channel="tool_call", call="c1"),
            delta(4, "}", channel="tool_call", call="c2"),
            delta(5, "d", turn="t2"),
        ]
    )
    assert [(e["seq"], e["channel"], e["delta"]) for e in widget.events] == [
        (0, "text", "a"),
        (1, "thinking", "bc"),
        (3, "tool_call", "{"),
        (4, "tool_call", "}"),
        (5, "text", "d"),
    ]


def test_a_batch_sends_one_append_with_merged_text() -> None:
    widget = AgentWidget()
    comm_of(widget).clear()
    widget.push_many(
        [
            delta(0, "a"),
            delta(1, "b"),
            event("error", 2, code="x", message="y", turn_id=None, retryable=False),
        ]
    )
    assert comm_of(widget).custom() == [
        {
            "type": "append",
            "events": [
                delta(0, "ab"),
                event("error", 2, code="x", message="y", turn_id=None, retryable=False),
            ],
            "max_events": 2000,
        }
    ]


def test_events_are_idempotent_by_seq_even_inside_a_coalesced_run() -> None:
    widget = AgentWidget()
    widget.push_many([delta(0, "a"), delta(1, "b"), delta(2, "c")])
    comm_of(widget).clear()
    widget.push_many([delta(1, "b"), delta(0, "a"), delta(2, "c")])
    assert widget.events == [delta(0, "abc")]
    assert comm_of(widget).messages == []


def test_an_event_filling_a_gap_is_inserted_in_order_and_resynced() -> None:
    widget = AgentWidget()
    e = lambda seq: event("error", seq, code=f"e{seq}", message="m", turn_id=None, retryable=False)  # noqa: E731
    widget.push_many([e(1), e(4)])
    comm_of(widget).clear()
    widget.push(e(2))
    assert [x["seq"] for x in widget.events] == [1, 2, 4]
    assert comm_of(widget).custom() == []
    assert [[x["seq"] for x in state["events"]] for state in comm_of(widget).updates()] == [
        [1, 2, 4]
    ]


def test_the_transcript_is_capped() -> None:
    widget = AgentWidget(max_events=3)
    comm_of(widget).clear()
    for seq in range(5):
        widget.push(event("error", seq, code="c", message=str(seq), turn_id=None, retryable=False))
    assert [x["seq"] for x in widget.events] == [2, 3, 4]
    assert {m["max_events"] for m in comm_of(widget).custom()} == {3}
    widget.push(event("error", 0, code="c", message="late", turn_id=None, retryable=False))
    assert [x["seq"] for x in widget.events] == [2, 3, 4]  # older than what is kept: dropped


def test_max_events_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_events"):
        AgentWidget(max_events=0)


def test_models_and_dicts_are_accepted_unknown_types_ignored_bad_events_rejected() -> None:
    widget = AgentWidget()
    widget.push(MessageDeltaEvent(agent_id="agent-test", seq=0, ts=1.0, turn_id="t1", delta="hi"))
    widget.push({"type": "from_the_future", "seq": 1})
    assert widget.events == [
        {
            "type": "message_delta",
            "agent_id": "agent-test",
            "seq": 0,
            "ts": 1.0,
            "turn_id": "t1",
            "channel": "text",
            "delta": "hi",
            "tool_call_id": None,
        }
    ]
    with pytest.raises(ValidationError):
        widget.push(event("message_delta", 2, turn_id="t1"))
    with pytest.raises(TypeError):
        widget.push("message_delta")  # type: ignore[arg-type]


def test_status_usage_and_mode_traits_follow_events() -> None:
    widget = AgentWidget()
    widget.push(
        StatusEvent(
            agent_id="agent-test",
            seq=0,
            ts=1.0,
            status="streaming",
            mode="plan",
            model="claude-x",
            demo=True,
        )
    )
    widget.push(
        event(
            "usage",
            1,
            turn_id="t1",
            request=USAGE,
            turn=USAGE,
            total=USAGE,
            context_tokens=1200,
            context_window=200000,
        )
    )
    assert (widget.status, widget.mode, widget.model, widget.demo) == (
        "streaming",
        "plan",
        "claude-x",
        True,
    )
    assert widget.usage == {
        "turn_id": "t1",
        "request": USAGE,
        "turn": USAGE,
        "total": USAGE,
        "context_tokens": 1200,
        "context_window": 200000,
    }
    assert widget.events == []  # the latest status and usage live in their traits only


def test_a_replayed_older_status_does_not_win() -> None:
    widget = AgentWidget()
    widget.push_many([status(5, "idle"), status(3, "streaming")])
    assert widget.status == "idle"


def test_pending_requests_follow_requests_and_resolutions() -> None:
    widget = AgentWidget()
    ui = event(
        "ui_request",
        2,
        request_id="u1",
        ui="confirm",
        title="Sure?",
        message="",
        options=[],
        default=None,
    )
    notify = event(
        "ui_request",
        3,
        request_id="u2",
        ui="notify",
        title="fyi",
        message="",
        options=[],
        default=None,
    )
    widget.push_many([permission_request(0, "r1"), permission_request(1, "r2"), ui, notify])
    assert [p["request_id"] for p in widget.pending] == ["r1", "r2"]
    assert [p["request_id"] for p in widget.pending_ui] == ["u1"]  # notify asks nothing
    answered = event("ui_resolved", 5, request_id="u1", value=True, decided_by="w")
    widget.push_many([permission_resolved(4, "r1"), answered])
    assert [p["request_id"] for p in widget.pending] == ["r2"]
    assert widget.pending_ui == []
    widget.push(permission_request(1, "r2"))  # a replay changes nothing
    assert [p["request_id"] for p in widget.pending] == ["r2"]
    widget.push(event("restarted", 6, lost=["permission request r2"], entries=12))
    assert widget.pending == []


def test_a_snapshot_replays_events_and_its_state_wins() -> None:
    widget = AgentWidget()
    snapshot = {
        "type": "snapshot",
        "agent_id": "agent-test",
        "status": "waiting_for_permission",
        "mode": "plan",
        "model": "claude-x",
        "last_seq": 3,
        "pending_permissions": [permission_request(2, "r2")],
        "events": [
            event("turn_start", 0, turn_id="t1", prompt="go"),
            permission_request(1, "r1"),
            permission_request(2, "r2"),
            status(3, "streaming"),
        ],
    }
    widget.apply_snapshot(SnapshotReply.model_validate(snapshot))
    assert [e["seq"] for e in widget.events] == [0, 1, 2]
    assert (widget.status, widget.mode, widget.model) == (
        "waiting_for_permission",
        "plan",
        "claude-x",
    )
    assert [p["request_id"] for p in widget.pending] == ["r2"]
    other = AgentWidget()
    other.apply_snapshot(snapshot)  # a dict is validated the same way
    assert other.events == widget.events


def test_assigning_events_validates_sorts_caps_and_keeps_streaming_working() -> None:
    widget = AgentWidget(max_events=3)
    start = event("turn_start", 1, turn_id="t1", prompt="p")
    widget.events = [delta(4, "x"), start, delta(0, "a"), delta(3, "b")]
    assert [e["seq"] for e in widget.events] == [1, 3, 4]
    widget.push(delta(5, "y"))
    assert widget.events[-1]["delta"] == "xy"
    with pytest.raises(ValidationError):
        widget.events = [{"type": "turn_start", "seq": 0}]
    widget.clear()
    assert (widget.events, widget.pending, widget.pending_ui) == ([], [], [])
    widget.push(delta(9, "z"))
    assert widget.events == [delta(9, "z")]


def test_the_state_a_new_browser_asks_for_includes_streamed_text() -> None:
    widget = AgentWidget()
    widget.push(delta(0, "a"))
    widget.push(delta(1, "b"))
    comm_of(widget).clear()
    widget._handle_msg({"content": {"data": {"method": "request_state"}}, "buffers": []})
    (state,) = comm_of(widget).updates()
    assert state["events"] == [delta(0, "ab")]
