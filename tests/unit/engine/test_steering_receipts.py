"""Steering receipts, context injection without a turn, and session titles in the turn loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shard_core.contracts import ToolContext
from shard_core.engine.session import AgentSession
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import (
    ContextInjectedEvent,
    Event,
    StatusEvent,
    SteerReceiptEvent,
    TurnStartEvent,
)
from shard_core.types import (
    JsonObject,
    MessageEntry,
    TextBlock,
    ToolResult,
    UserMessage,
)
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


class GateTool:
    """A tool that runs until the test opens its gate: a 'long tool call' with no timing."""

    name = "wait"
    description = "waits"
    input_schema: JsonObject = {"type": "object"}
    read_only = True

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.gate = asyncio.Event()

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        self.started.set()
        await self.gate.wait()
        return ToolResult.ok("waited")


def _receipts(events: list[Event]) -> list[dict[str, Any]]:
    return [
        e.model_dump(exclude={"agent_id", "seq", "ts"})
        for e in events
        if isinstance(e, SteerReceiptEvent)
    ]


def _texts(message: Any) -> list[str]:
    return [b.text for b in message.content if isinstance(b, TextBlock)]


async def test_a_steer_during_a_long_tool_call_is_admitted_with_its_entry(
    make_session: Make,
) -> None:
    provider = FunctionProvider(scripted({"tool_calls": [("wait", {})]}, "ok"))
    session = make_session(provider)
    tool = GateTool()
    session.tools.register(tool)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    async def steer_while_waiting() -> str:
        await tool.started.wait()
        steer_id = session.steer("use the other file", steer_id="s-1")
        assert _receipts(seen) == []  # not admitted until a request carries it
        tool.gate.set()
        return steer_id

    end, steer_id = await asyncio.gather(session.run("go"), steer_while_waiting())
    assert end.reason == "completed"
    assert steer_id == "s-1"
    [receipt] = [e for e in seen if isinstance(e, SteerReceiptEvent)]
    entry = session.store.get(receipt.entry_id or "")
    assert isinstance(entry, MessageEntry)
    assert entry.details.steer_id == "s-1"
    assert _texts(entry.details.message) == ["use the other file"]
    assert _receipts(seen) == [
        {
            "type": "steer_receipt",
            "steer_id": "s-1",
            "status": "admitted",
            "text": "use the other file",
            "images": [],
            "reason": None,
            "entry_id": entry.id,
            "turn_id": end.turn_id,
        }
    ]
    # the request that followed carried it, last
    assert _texts(provider.requests[1].messages[-1]) == ["use the other file"]


async def test_a_steer_the_turn_did_not_carry_is_rejected_or_queued(make_session: Make) -> None:
    provider = FunctionProvider(scripted("ok", "second"))
    session = make_session(provider)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    first = await session.run("one")  # the turn has ended: nothing to steer
    session.steer("too late", steer_id="late")
    session.steer("next time", steer_id="later", queue=True)
    assert [(r["steer_id"], r["status"], r["reason"]) for r in _receipts(seen)] == [
        ("late", "rejected", "no turn was running (send it as a prompt)"),
        ("later", "queued", "no turn was running: waits for the next"),
    ]
    assert first.reason == "completed"
    second = await session.run("two")
    admitted = _receipts(seen)[-1]
    assert (admitted["steer_id"], admitted["status"], admitted["turn_id"]) == (
        "later",
        "admitted",
        second.turn_id,
    )
    assert _texts(provider.requests[-1].messages[-1]) == ["next time"]


async def test_a_steer_arriving_during_the_last_request_is_rejected_when_the_turn_ends(
    make_session: Make,
) -> None:
    seen: list[Event] = []
    holder: dict[str, AgentSession] = {}

    def reply(_request: Any, n: int) -> str:
        holder["s"].steer("while you answer", steer_id="mid")  # the final request is in flight
        holder["s"].steer("and keep this", steer_id="keep", queue=True)
        return "final answer"

    session = make_session(FunctionProvider(reply))
    holder["s"] = session
    session.events.subscribe(seen.append)
    end = await session.run("hello")
    assert [(r["steer_id"], r["status"], r["reason"]) for r in _receipts(seen)] == [
        ("mid", "rejected", "the turn ended (completed) before another provider request"),
        ("keep", "queued", "the turn ended (completed) first: queued for the next turn"),
    ]
    assert all(r["turn_id"] == end.turn_id for r in _receipts(seen))
    logged = [e for e in session.store.branch() if isinstance(e, MessageEntry)]
    assert not any(e.details.steer_id for e in logged)  # nothing a request did not carry


async def test_replace_supersedes_the_steers_still_waiting(make_session: Make) -> None:
    provider = FunctionProvider(scripted({"tool_calls": [("wait", {})]}, "ok"))
    session = make_session(provider)
    tool = GateTool()
    session.tools.register(tool)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    async def steer() -> None:
        await tool.started.wait()
        session.steer("first idea", steer_id="a")
        session.steer("better idea", steer_id="b", replace=True)
        tool.gate.set()

    await asyncio.gather(session.run("go"), steer())
    assert [(r["steer_id"], r["status"], r["reason"]) for r in _receipts(seen)] == [
        ("a", "superseded", "replaced by b"),
        ("b", "admitted", None),
    ]
    assert _texts(provider.requests[1].messages[-1]) == ["better idea"]


async def test_inject_then_prompt_carries_the_context_before_the_prompt(
    make_session: Make,
) -> None:
    provider = FunctionProvider(scripted("seen it"))
    session = make_session(provider)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    entry_id = session.inject("Traceback: ZeroDivisionError", kind="output", label="cell [3]")
    assert provider.requests == []  # no turn ran at inject time
    assert not any(isinstance(e, TurnStartEvent) for e in seen)
    [injected] = [e for e in seen if isinstance(e, ContextInjectedEvent)]
    assert (injected.entry_id, injected.kind, injected.label, injected.turn_id) == (
        entry_id,
        "output",
        "cell [3]",
        None,
    )
    await session.run("why did it fail?")
    [request] = provider.requests
    users = [m for m in request.messages if isinstance(m, UserMessage)]
    assert [_texts(m) for m in users] == [
        ['<context kind="output" label="cell [3]">\nTraceback: ZeroDivisionError\n</context>'],
        ["why did it fail?"],
    ]
    entry = session.store.get(entry_id or "")
    assert isinstance(entry, MessageEntry)
    assert entry.details.context is not None
    assert entry.details.context.kind == "output"


async def test_inject_during_a_turn_waits_for_its_next_request(make_session: Make) -> None:
    provider = FunctionProvider(scripted({"tool_calls": [("wait", {})]}, "ok"))
    session = make_session(provider)
    tool = GateTool()
    session.tools.register(tool)

    async def inject() -> None:
        await tool.started.wait()
        count = len(session.store.entries)
        assert session.inject("a note", kind="note") is None
        assert len(session.store.entries) == count  # nothing logged mid-step
        tool.gate.set()

    await asyncio.gather(session.run("go"), inject())
    assert _texts(provider.requests[1].messages[-1]) == [
        '<context kind="note">\na note\n</context>'
    ]


async def test_the_title_comes_from_the_first_prompt_and_survives_resume(
    make_session: Make, tmp_path: Path, workspace: Path
) -> None:
    session = make_session(FunctionProvider(scripted("a", "b")))
    statuses: list[StatusEvent] = []
    session.events.subscribe(lambda e: statuses.append(e) if isinstance(e, StatusEvent) else None)
    await session.run("## Fix the flaky   login test\nit fails on CI about once a day")
    await session.run("now the signup test")
    assert session.title == "Fix the flaky login test"
    assert statuses[-1].title == "Fix the flaky login test"
    session.set_title("Login flake")
    path = session.store.path
    session.store.close()
    resumed = make_session(FunctionProvider(scripted("c")), store=SessionStore.open(path))
    assert resumed.title == "Login flake"
    await resumed.compact("manual", force=True)
    await resumed.run("and after a compaction?")
    assert resumed.title == "Login flake"


async def test_the_model_writes_the_title_when_configured(
    make_session: Make, tmp_path: Path
) -> None:
    asked: list[str] = []

    def reply(request: Any, n: int) -> str:
        if request.system and request.system[0].name == "title":
            asked.append(_texts(request.messages[0])[0])
            assert request.max_tokens == 32
            assert [_texts(m) for m in request.messages] == [["please fix the flaky login test"]]
            return '"Flaky login test fix."'
        return "on it"

    log = tmp_path / "usage.jsonl"
    session = make_session(FunctionProvider(reply), model_titles=True, usage_log=log)
    await session.run("please fix the flaky login test")
    assert session.title == "please fix the flaky login test"  # at once, without a model
    assert session.title_task is not None
    await session.title_task
    assert session.title == "Flaky login test fix"
    titles = [
        (e.details.title, e.details.source)
        for e in session.store.entries
        if e.type == "checkpoint" and e.details.kind == "title"
    ]
    assert titles == [
        ("please fix the flaky login test", "prompt"),
        ("Flaky login test fix", "model"),
    ]
    assert log.read_text().count("\n") == 2  # the turn's request and the title's
    await session.run("second prompt")
    assert asked == ["please fix the flaky login test"]  # asked once, after the first turn


async def test_no_model_is_asked_for_a_title_by_default(make_session: Make) -> None:
    provider = FunctionProvider(scripted("ok"))
    session = make_session(provider)
    await session.run("hello there")
    assert session.title_task is None
    assert len(provider.requests) == 1
