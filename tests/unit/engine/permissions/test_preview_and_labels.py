"""What a person deciding sees: the call's preview, who decided (by label), and rule decisions."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from shard_core.contracts import Tool, ToolContext
from shard_core.engine.events import EventStream
from shard_core.engine.permissions import GrantStore, RuleGate
from shard_core.engine.permissions import preview as preview_module
from shard_core.engine.permissions.preview import bound_preview
from shard_core.protocol.events import Event, PermissionRequestEvent, PermissionResolvedEvent
from shard_core.tools import BashTool, WriteTool
from shard_core.types import (
    DiffDescriptor,
    Hunk,
    JsonObject,
    PermissionDetails,
    RenderDescriptor,
    StatusDescriptor,
    TextDescriptor,
    ToolResult,
)
from tests.unit.engine.permissions._support import Log, asked, rules


class OddTool:
    """A tool whose preview raises, hangs or returns whatever it is given."""

    name = "odd"
    description = "odd"
    input_schema: JsonObject = {"type": "object"}
    read_only = False

    def __init__(self, behaviour: str, value: object = None) -> None:
        self.behaviour = behaviour
        self.value = value

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        return ToolResult.error("not run")

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        if self.behaviour == "raise":
            raise RuntimeError("preview bug")
        if self.behaviour == "hang":
            await asyncio.Event().wait()
        return self.value  # type: ignore[return-value]


@pytest.fixture
def seen() -> tuple[EventStream, list[Event]]:
    stream = EventStream("agent-1")
    events: list[Event] = []
    stream.subscribe(events.append)
    return stream, events


def gate_with(log: Log, stream: EventStream, *tools: Tool, **options: object) -> RuleGate:
    by_name = {t.name: t for t in tools}
    return RuleGate(
        rules=options.pop("rules", rules()),  # type: ignore[arg-type]
        grants=GrantStore("agent-1"),
        record=log.record,
        events=stream,
        tools=by_name.get,
        has_responder=lambda: True,
    )


async def ask_once(gate: RuleGate, events: list[Event], query) -> PermissionRequestEvent:
    """Ask, answer deny, and return the permission_request that was broadcast."""
    task = asyncio.create_task(gate.authorize(query))
    async with asyncio.timeout(5):  # a preview may take up to its time limit
        while not gate.pending.prompts():
            await asyncio.sleep(0.005)
    request_id = await asked(gate)
    assert gate.respond(request_id, "deny", "c", "interactive").accepted
    await task
    requests = [e for e in events if isinstance(e, PermissionRequestEvent)]
    assert [r.request_id for r in requests] == [request_id]
    return requests[0]


# ---------------------------------------------------------------- previews


async def test_a_write_request_carries_the_diff_it_would_make(
    home: Path, ws: Path, query, log: Log, seen
) -> None:
    stream, events = seen
    (ws / "notes.txt").write_text("one\ntwo\n")
    gate = gate_with(log, stream, WriteTool())

    request = await ask_once(gate, events, query("write", path="notes.txt", content="one\n2\n"))

    assert (ws / "notes.txt").read_text() == "one\ntwo\n"
    assert request.preview == [
        DiffDescriptor(
            path="notes.txt",
            status="modified",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=2,
                    new_start=1,
                    new_lines=2,
                    lines=[" one", "-two", "+2"],
                )
            ],
        )
    ]
    assert gate.pending.prompts() == []


async def test_a_bash_request_carries_its_command(home: Path, query, log: Log, seen) -> None:
    stream, events = seen
    gate = gate_with(log, stream, BashTool())

    request = await ask_once(gate, events, query("bash", command="git push origin main"))

    assert request.preview == [
        TextDescriptor(text="git push origin main", format="code", language="bash")
    ]


async def test_the_preview_uses_the_calls_own_context(
    home: Path, ws: Path, tmp_path: Path, query, log: Log, seen
) -> None:
    stream, events = seen
    other = tmp_path / "other-root"
    other.mkdir()
    (other / "x.txt").write_text("a\n")
    gate = gate_with(log, stream, WriteTool())
    base = query("write", path=str(other / "x.txt"), content="b\n")
    ctx = ToolContext(cwd=ws, roots=(ws, other), agent_id="a", session_id="s", call_id="call-1")

    request = await ask_once(gate, events, type(base)(**{**base.__dict__, "context": ctx}))

    assert [d.kind for d in request.preview] == ["diff"]


@pytest.mark.parametrize(
    ("behaviour", "value"),
    [("raise", None), ("hang", None), ("value", [{"kind": "nonsense"}]), ("value", "text")],
)
async def test_a_broken_preview_is_left_out_and_the_question_still_asked(
    home: Path, query, log: Log, seen, monkeypatch: pytest.MonkeyPatch, behaviour, value
) -> None:
    monkeypatch.setattr(preview_module, "PREVIEW_TIMEOUT", 0.05)
    stream, events = seen
    gate = gate_with(log, stream, OddTool(behaviour, value))

    request = await ask_once(gate, events, query("odd"))

    assert request.preview == []
    assert [(e.decision, e.source) for e in log.entries] == [("deny", "client")]


async def test_a_huge_preview_is_cut_with_a_note(home: Path, query, log: Log, seen) -> None:
    stream, events = seen
    text = "\n".join(f"line {n}" for n in range(1000))
    gate = gate_with(log, stream, OddTool("value", [TextDescriptor(text=text)]))

    request = await ask_once(gate, events, query("odd"))

    kept = "\n".join(f"line {n}" for n in range(300))
    assert request.preview == [
        TextDescriptor(text=kept),
        StatusDescriptor(label="preview cut short: 700 more lines not shown", tone="warn"),
    ]


def test_diff_lines_are_counted_across_hunks() -> None:
    def hunk(n: int, count: int) -> Hunk:
        return Hunk(old_start=n, old_lines=0, new_start=n, new_lines=count, lines=["+x"] * count)

    diff = DiffDescriptor(path="a", hunks=[hunk(1, 200), hunk(300, 150), hunk(600, 10)])
    cut = hunk(300, 150).model_copy(update={"lines": ["+x"] * 100})

    assert bound_preview([diff, TextDescriptor(text="cmd")]) == [
        DiffDescriptor(path="a", hunks=[hunk(1, 200), cut]),
        StatusDescriptor(label="preview cut short: 61 more lines not shown", tone="warn"),
    ]
    small = [DiffDescriptor(path="a", hunks=[hunk(1, 3)])]
    assert bound_preview(list(small)) == small


# ---------------------------------------------------------------- who decided


async def test_a_labelled_answer_is_decided_by_the_label_and_keeps_the_client_id(
    home: Path, query, log: Log, seen
) -> None:
    stream, events = seen
    gate = gate_with(log, stream)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    request_id = await asked(gate)

    first = gate.respond(request_id, "allow", "client-7", "interactive", label="alice · Tab 2")
    late = gate.respond(request_id, "deny", "client-8", "interactive", label="bob")
    outcome = await task

    assert first.accepted
    assert (late.accepted, late.message) == (False, "already decided by alice · Tab 2 (allow)")
    assert outcome.decided_by == "alice · Tab 2"
    resolved = [e for e in events if isinstance(e, PermissionResolvedEvent)]
    assert [e.model_dump(exclude={"ts", "seq", "scope"}) for e in resolved] == [
        {
            "type": "permission_resolved",
            "agent_id": "agent-1",
            "request_id": request_id,
            "decision": "allow",
            "decided_by": "alice · Tab 2",
            "source": "client",
            "reason": None,
            "rule": None,
            "client_id": "client-7",
            "tool_call_id": "call-1",
        }
    ]
    assert log.entries == [
        PermissionDetails(
            request_id=request_id,
            tool="bash",
            input={"command": "git push"},
            decision="allow",
            source="client",
            decided_by="alice · Tab 2",
            tool_call_id="call-1",
            client_id="client-7",
        )
    ]


async def test_an_answer_without_a_label_is_decided_by_the_client_id(
    home: Path, query, log: Log, seen
) -> None:
    stream, events = seen
    gate = gate_with(log, stream)
    task = asyncio.create_task(gate.authorize(query("bash", command="git push")))
    gate.respond(await asked(gate), "deny", "client-7", "interactive")
    await task

    resolved = [e for e in events if isinstance(e, PermissionResolvedEvent)]
    assert [(e.decided_by, e.client_id) for e in resolved] == [("client-7", "client-7")]


async def test_a_rule_or_grant_decision_is_announced_and_the_default_policy_is_quiet(
    home: Path, query, log: Log, seen
) -> None:
    stream, events = seen
    gate = gate_with(log, stream, rules=rules(allow=("Bash(pytest:*)",), deny=("Bash(rm:*)",)))
    gate.grants.add("Bash(make:*)", "alice")

    await gate.authorize(query("bash", command="pytest -q"))
    await gate.authorize(query("bash", command="make test"))
    await gate.authorize(query("bash", command="rm -rf build"))
    await gate.authorize(query("read", path="a.txt"))  # the default policy: no event

    resolved = [
        e.model_dump(exclude={"ts", "seq", "agent_id", "type", "request_id", "reason", "scope"})
        for e in events
        if isinstance(e, PermissionResolvedEvent)
    ]
    assert resolved == [
        {
            "decision": "allow",
            "decided_by": "Bash(pytest:*)",
            "source": "rule",
            "rule": "Bash(pytest:*)",
            "client_id": None,
            "tool_call_id": "call-1",
        },
        {
            "decision": "allow",
            "decided_by": "Bash(make:*)",
            "source": "grant",
            "rule": "Bash(make:*)",
            "client_id": None,
            "tool_call_id": "call-1",
        },
        {
            "decision": "deny",
            "decided_by": "Bash(rm:*)",
            "source": "rule",
            "rule": "Bash(rm:*)",
            "client_id": None,
            "tool_call_id": "call-1",
        },
    ]
    assert not any(isinstance(e, PermissionRequestEvent) for e in events)
    assert [e.request_id for e in log.entries[:3]] == [
        e.request_id for e in events if isinstance(e, PermissionResolvedEvent)
    ]
