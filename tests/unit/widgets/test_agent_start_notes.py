"""The agent's start diagnostics and its goal reach the widget's traits (what the header shows)."""

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


def test_the_latest_status_sets_the_goal() -> None:
    widget = AgentWidget()
    assert widget.goal == ""
    widget.push(_status(2, goal="ship the parser"))
    assert widget.goal == "ship the parser"
    widget.push(_status(1, goal="an older goal"))  # replayed: ignored
    assert widget.goal == "ship the parser"
    widget.push(_status(3, goal=None))  # cleared or met
    assert widget.goal == ""


def test_the_latest_status_sets_the_todo_list() -> None:
    widget = AgentWidget()
    assert widget.todos == []
    items = [{"id": "1", "content": "fix add", "status": "in_progress"}]
    widget.push(_status(2, todos=items))
    assert widget.todos == items
    widget.push(_status(3, todos=None))
    assert widget.todos == []
