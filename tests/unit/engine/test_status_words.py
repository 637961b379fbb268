"""The status a turn reports as it goes: streaming while the model answers, running_tool from a
tool call to its result, waiting_for_permission while a question is open (back to running_tool
when it is answered), idle once the turn ended. The sidebar's badge and every header read it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from shard_core.contracts import PermissionOutcome, PermissionQuery
from shard_core.engine.session import AgentSession
from shard_core.protocol.events import (
    PermissionRequestEvent,
    PermissionResolvedEvent,
    StatusEvent,
)
from shard_core.types import Allow, Decision
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


class AskingGate:
    """Asks about every call and answers it at once, through the session's events as the real
    gate announces its questions."""

    session: AgentSession | None = None

    def evaluate(self, query: PermissionQuery) -> Decision:
        return Allow(rule="test")

    async def authorize(self, query: PermissionQuery) -> PermissionOutcome:
        assert self.session is not None
        events = self.session.events
        fields = {"request_id": "perm-1", "tool_call_id": query.call_id}
        events.emit(
            PermissionRequestEvent, tool=query.tool, input=query.input, prompt="?", **fields
        )
        events.emit(
            PermissionResolvedEvent, decision="allow", decided_by="you", source="client", **fields
        )
        return PermissionOutcome(Allow(rule=None), "client", "you")


async def _statuses(session: AgentSession, text: str) -> list[str]:
    return [e.status async for e in session.prompt(text) if isinstance(e, StatusEvent)]


async def test_a_tool_runs_between_streaming_and_the_end(
    make_session: Make, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("read", {"path": "a.txt"}), ("read", {"path": "a.txt"})]}, "Read it."
        )
    )
    session = make_session(provider)
    assert await _statuses(session, "read a.txt twice") == [
        "streaming",
        "running_tool",
        "streaming",
        "running_tool",
        "streaming",
    ]
    assert session.status == "idle"


async def test_an_answered_question_goes_back_to_running_the_tool(
    make_session: Make, workspace: Path
) -> None:
    provider = FunctionProvider(
        scripted({"tool_calls": [("write", {"path": "b.txt", "content": "b\n"})]}, "Wrote it.")
    )
    session = make_session(provider)
    gate = AskingGate()
    gate.session = session
    session.gate = gate
    assert await _statuses(session, "write b.txt") == [
        "streaming",
        "running_tool",
        "waiting_for_permission",
        "running_tool",
        "streaming",
    ]
    assert session.status == "idle"
    assert (workspace / "b.txt").read_text() == "b\n"
