"""AgentWidget's display keeps a static transcript: render MIME + text, refreshed at turn end."""

from __future__ import annotations

from typing import Any

import IPython.display
import pytest

from shard_widgets import AgentWidget, _display, _snapshot
from tests.unit.widgets._support import delta, event

RENDER = "application/vnd.shard.render+json"
VIEW = "application/vnd.jupyter.widget-view+json"
USAGE = {
    "input_tokens": 120,
    "output_tokens": 30,
    "cache_read_tokens": 0,
    "cache_write_tokens": 0,
    "cost_usd": None,
}


def turn(seq: int = 0) -> list[dict[str, Any]]:
    """One turn: prompt, streamed text replaced by the complete message, a tool, the end."""
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Fixing add()."}],
        "stop_reason": "tool_use",
        "model": None,
    }
    result = {
        "content": [{"type": "text", "text": "edited calc.py: 1 replacement(s), +1 -1 lines"}],
        "is_error": False,
        "render": [],
        "details": {},
    }
    return [
        event("turn_start", seq, turn_id="t1", prompt="fix add", entry_id=None),
        delta(seq + 1, "Fixing add()."),
        event("message_complete", seq + 2, turn_id="t1", entry_id="e1", message=message),
        event(
            "tool_result",
            seq + 3,
            turn_id="t1",
            tool_call_id="c1",
            name="edit",
            entry_id="e2",
            result=result,
        ),
        event("turn_end", seq + 4, turn_id="t1", reason="completed", usage=USAGE, error=None),
    ]


def stored(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as the widget keeps them (validated: every field present)."""
    widget = AgentWidget()
    widget.push_many(events)
    return list(widget.events)


def test_the_bundle_keeps_the_live_view_and_adds_the_transcript() -> None:
    widget = AgentWidget(model="scripted/demo", mode="build", demo=True)
    widget.push_many(turn())
    kept = stored(turn())

    data, metadata = widget._repr_mimebundle_()

    summary = (
        "Shard agent · scripted/demo · build mode · idle · scripted demo\n"
        "> fix add\n"
        "  Fixing add().\n"
        "  ✓ edit: edited calc.py: 1 replacement(s), +1 -1 lines\n"
        "— completed · 120 in · 30 out · cost unknown"
    )
    assert data == {
        VIEW: {"version_major": 2, "version_minor": 1, "model_id": widget.model_id},
        RENDER: {
            "version": 1,
            "descriptors": [
                {"kind": "text", "version": 1, "text": summary, "format": "plain", "language": None}
            ],
            "transcript": [kept[0], *kept[2:]],  # the streamed delta: its message replaced it
            "omitted": 0,
            "state": {
                "status": "idle",
                "mode": "build",
                "model": "scripted/demo",
                "demo": True,
                "usage": {},
            },
        },
        "text/plain": summary,
    }
    assert metadata == {}


def test_a_stream_that_never_completed_is_kept() -> None:
    events = turn()[:2]
    kept, omitted = _snapshot.transcript(stored(events))
    assert (kept, omitted) == (stored(events), 0)


def test_the_transcript_is_bounded_newest_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_snapshot, "MAX_EVENTS", 3)
    widget = AgentWidget()
    widget.push_many(turn())

    payload = widget._repr_mimebundle_()[0][RENDER]

    assert [e["seq"] for e in payload["transcript"]] == [2, 3, 4]
    assert payload["omitted"] == 1
    assert payload["descriptors"][0]["text"].splitlines()[1] == "… 1 earlier event not kept"


class FakePublisher:
    """IPython's display publisher in a kernel: a session, the IOPub socket, a parent header."""

    def __init__(self) -> None:
        self.parent_header = {"msg_id": "cell-1", "msg_type": "execute_request"}
        self.session = self
        self.pub_socket = object()
        self.topic = b"display_data"
        self.sent: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    def send(self, socket: object, kind: str, content: dict[str, Any], **keys: Any) -> None:
        assert socket is self.pub_socket
        self.sent.append((kind, content, keys["parent"]))


def test_a_displayed_widget_refreshes_its_output_when_a_turn_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publisher = FakePublisher()
    shown: list[tuple[dict[str, Any], dict[str, Any]]] = []
    monkeypatch.setattr(_display, "_publisher", lambda: publisher)
    monkeypatch.setattr(IPython.display, "display", lambda data, **keys: shown.append((data, keys)))
    widget = AgentWidget(model="m", mode="build", status="streaming")
    display_id = f"shard-agent-{widget.model_id}"

    widget._ipython_display_()
    publisher.parent_header = {"msg_id": "a-later-cell"}  # the refresh still names cell-1
    events = turn()
    widget.push_many(events[:-1])
    assert publisher.sent == []  # nothing until the turn ends
    widget.push(events[-1])
    widget.push(event("status", 5, status="idle", mode="build", model="m", demo=False))

    [(data, keys)] = shown
    assert keys == {"metadata": {}, "raw": True, "display_id": display_id}
    assert data[RENDER]["transcript"] == []
    assert [(kind, parent) for kind, _, parent in publisher.sent] == [
        ("update_display_data", {"msg_id": "cell-1", "msg_type": "execute_request"}),
        ("update_display_data", {"msg_id": "cell-1", "msg_type": "execute_request"}),
    ]
    first, second = (content for _, content, _ in publisher.sent)
    assert first["transient"] == {"display_id": display_id}
    expected = _snapshot.snapshot_bundle(
        stored(events), {**widget.snapshot_state(), "status": "streaming"}
    )
    assert first["data"] == {**data, **expected}
    assert second["data"][RENDER]["state"]["status"] == "idle"
    assert second["data"][VIEW] == data[VIEW]  # the live widget still renders
    assert second["data"]["text/plain"].endswith("— completed · 120 in · 30 out · cost unknown")


def test_an_undisplayed_widget_sends_no_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    publisher = FakePublisher()
    monkeypatch.setattr(_display, "_publisher", lambda: publisher)
    AgentWidget().push_many(turn())
    assert publisher.sent == []


def _idle(seq: int) -> dict[str, Any]:
    return event("status", seq, status="idle", mode="build", model="m", demo=False)


def test_a_superseded_widget_keeps_its_saved_transcript_after_its_running_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The `%shard new` widget above a `%%shard` cell does not save that cell's turn again."""
    publisher = FakePublisher()
    monkeypatch.setattr(_display, "_publisher", lambda: publisher)
    monkeypatch.setattr(IPython.display, "display", lambda data, **keys: None)
    idle = AgentWidget(model="m", mode="build", status="idle")
    busy = AgentWidget(model="m", mode="build", status="streaming")
    for widget in (idle, busy):
        widget._ipython_display_()
        widget.supersede()  # a newer cell shows the agent from here on
    idle.push_many([*turn(), _idle(5)])
    assert publisher.sent == []  # idle when superseded: its output stays as it was
    assert "Fixing add()." in str(idle.events)  # the live view still follows

    busy.push_many(turn())  # the turn it was showing ends: saved once more, then its idle
    busy.push(_idle(5))
    saved = [content["data"][RENDER] for _, content, _ in publisher.sent]
    assert len(saved) == 2
    assert saved[-1]["transcript"] != []
    assert saved[-1]["state"]["status"] == "idle"
    busy.push_many([*turn(10), _idle(15)])  # a later turn: in the newer cell only
    assert len(publisher.sent) == 2


def test_a_prompts_images_are_kept_and_named_in_the_text_a_large_one_as_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_snapshot, "MAX_IMAGE_CHARS", 100)
    small = {"type": "image", "media_type": "image/png", "data": "A" * 88}
    large = {"type": "image", "media_type": "image/jpeg", "data": "B" * 400}
    events = [event("turn_start", 0, turn_id="t1", prompt="see", images=[small, large])]

    kept, _ = _snapshot.transcript(events)
    assert kept[0]["images"] == [
        small,
        {"type": "text", "text": "image/jpeg image, not kept in the saved output"},
    ]
    assert events[0]["images"][1] == large  # the live transcript's event is not changed
    lines = _snapshot.summary_text(kept, {"mode": "build", "status": "idle"}).splitlines()
    assert lines[1:] == [
        "> see",
        "  [image/png image, 66 bytes]",
        "  [image/jpeg image, not kept in the saved output]",
    ]
