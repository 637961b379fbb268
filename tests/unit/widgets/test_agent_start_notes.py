"""The agent's start diagnostics reach the widget's `diagnostics` trait (what the header lists)."""

from __future__ import annotations

from shard_widgets import AgentWidget
from tests.unit.widgets._support import event

SKIPPED = "skipped /w/AGENTS.md: project context needs --trust-project"


def _status(seq: int, **fields: object) -> dict[str, object]:
    return event("status", seq, status="idle", mode="build", model="m", demo=False, **fields)


def test_the_latest_status_sets_the_diagnostics() -> None:
    widget = AgentWidget()
    assert widget.diagnostics == []
    widget.push(_status(2, diagnostics=[SKIPPED]))
    assert widget.diagnostics == [SKIPPED]
    widget.push(_status(1, diagnostics=[]))  # an older status replayed: ignored
    assert widget.diagnostics == [SKIPPED]
    widget.push(_status(3))  # a status without the field has none
    assert widget.diagnostics == []
