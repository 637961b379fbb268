"""Helpers for the widget tests: a recording comm, event builders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm
from ipywidgets.widgets.widget import _instances  # pyright: ignore[reportPrivateUsage]


class RecordingComm(BaseComm):
    def __init__(self, **kwargs: Any) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        super().__init__(**kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        # serialized now, as the kernel does: later in-place changes must not show through
        self.messages.append((msg_type, json.loads(json.dumps(data or {}))))

    def custom(self) -> list[dict[str, Any]]:
        """Custom messages the widget sent to the browser, oldest first."""
        return [
            d["content"]
            for t, d in self.messages
            if t == "comm_msg" and d.get("method") == "custom"
        ]

    def updates(self) -> list[dict[str, Any]]:
        """State updates (trait syncs) the widget sent."""
        return [
            d["state"] for t, d in self.messages if t == "comm_msg" and d.get("method") == "update"
        ]

    def clear(self) -> None:
        self.messages.clear()


def comm_of(widget: Any) -> RecordingComm:
    assert isinstance(widget.comm, RecordingComm)
    return widget.comm


def event(kind: str, seq: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "agent_id": "agent-test",
        "seq": seq,
        "ts": 1_700_000_000.0 + seq,
        **fields,
    }


def delta(
    seq: int, text: str, *, turn: str = "t1", channel: str = "text", call: str | None = None
) -> dict[str, Any]:
    return event("message_delta", seq, turn_id=turn, channel=channel, delta=text, tool_call_id=call)


def permission_request(seq: int, request_id: str = "req-1", **fields: Any) -> dict[str, Any]:
    base = {
        "request_id": request_id,
        "tool": "bash",
        "input": {"command": "make"},
        "prompt": "Run make?",
        "suggested_rule": "bash(make)",
        "read_only": False,
        "tool_call_id": None,
        "turn_id": "t1",
        "preview": [],
    }
    return event("permission_request", seq, **{**base, **fields})


def permission_resolved(seq: int, request_id: str = "req-1", **fields: Any) -> dict[str, Any]:
    base = {
        "request_id": request_id,
        "decision": "allow",
        "decided_by": "widget-a",
        "source": "client",
        "reason": None,
        "rule": None,
        "client_id": None,
        "tool_call_id": None,
        "scope": None,
    }
    return event("permission_resolved", seq, **{**base, **fields})


def recording_comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    """Widgets made meanwhile get RecordingComms (`comm.create_comm` is the documented
    replacement point); yields the list of them, and closes those widgets afterwards."""
    made: list[RecordingComm] = []

    def create_comm(**kwargs: Any) -> RecordingComm:
        made.append(RecordingComm(**kwargs))
        return made[-1]

    monkeypatch.setattr(comm, "create_comm", create_comm)
    yield made
    for widget in list(_instances.values()):
        if widget.comm in made:
            widget.close()
