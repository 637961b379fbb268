"""A running tool's `on_update` reaches clients as throttled, unlogged `tool_update` events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from shard_core.contracts import ToolContext
from shard_core.engine.event_log import EventLog
from shard_core.engine.session import AgentSession
from shard_core.engine.tool_updates import ToolUpdates
from shard_core.protocol.events import Event, ToolResultEvent, ToolUpdateEvent
from shard_core.types import JsonObject, ToolResult
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


class ChattyTool:
    """Reports its partial state many times, then waits until the test lets it finish."""

    name = "chatty"
    description = "reports progress"
    input_schema: JsonObject = {"type": "object"}
    read_only = True

    def __init__(self, updates: int) -> None:
        self.updates = updates
        self.reported = asyncio.Event()
        self.gate = asyncio.Event()

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        assert ctx.on_update is not None
        for i in range(self.updates):
            ctx.on_update(ToolResult.ok(f"line {i}"))
        self.reported.set()
        await self.gate.wait()
        ctx.on_update(ToolResult.ok("last"))  # after a quiet spell: goes out at once
        ctx.on_update(ToolResult.ok("too late"))  # held, then dropped: the result comes first
        return ToolResult.ok("done")


async def test_a_tool_calling_on_update_produces_tool_update_events_before_its_result(
    make_session: Make,
) -> None:
    provider = FunctionProvider(scripted({"tool_calls": [("chatty", {})]}, "ok"))
    session = make_session(provider)
    tool = ChattyTool(updates=500)
    session.tools.register(tool)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    async def let_it_finish() -> None:
        await tool.reported.wait()
        await asyncio.sleep(0.3)  # several throttle intervals: the held latest state goes out
        tool.gate.set()

    end, _ = await asyncio.gather(session.run("go"), let_it_finish())
    assert end.reason == "completed"
    updates = [e for e in seen if isinstance(e, ToolUpdateEvent)]
    [result] = [e for e in seen if isinstance(e, ToolResultEvent)]
    # 500 reports in one burst: the first at once, the latest when the interval ends
    assert [u.partial.text for u in updates] == ["line 0", "line 499", "last"]
    assert {u.tool_call_id for u in updates} == {result.tool_call_id}
    assert all(u.name == "chatty" and u.turn_id == end.turn_id for u in updates)
    # nothing follows the result: the final tool_result always wins
    after = seen[seen.index(result) + 1 :]
    assert not any(isinstance(e, ToolUpdateEvent) for e in after)
    assert result.result.text == "done"


async def test_the_throttle_keeps_only_the_latest_state_per_interval() -> None:
    now = [100.0]
    sent: list[str] = []
    updates = ToolUpdates(lambda r: sent.append(r.text), interval=0.05, clock=lambda: now[0])
    for i in range(100):
        updates.push(ToolResult.ok(f"{i}"))
    assert sent == ["0"]  # the rest are held
    await asyncio.sleep(0.2)  # the held one is released when the interval ends
    assert sent == ["0", "99"]
    now[0] += 1.0  # a quiet spell: the next report goes out at once
    updates.push(ToolResult.ok("later"))
    assert sent == ["0", "99", "later"]
    updates.push(ToolResult.ok("held"))
    updates.close()  # the result came: the held state is dropped, later reports ignored
    updates.push(ToolResult.ok("after"))
    await asyncio.sleep(0.2)
    assert sent == ["0", "99", "later"]


async def test_an_update_from_another_thread_is_emitted_on_the_call_loop() -> None:
    loop = asyncio.get_running_loop()
    threads: list[bool] = []
    got = asyncio.Event()

    def emit(_: ToolResult) -> None:
        threads.append(asyncio.get_running_loop() is loop)
        got.set()

    updates = ToolUpdates(emit)
    await asyncio.to_thread(updates.push, ToolResult.ok("from a thread"))
    await got.wait()
    assert threads == [True]


def test_tool_updates_are_not_written_to_the_event_log(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    partial = ToolResult.ok("so far")
    log.append(
        ToolUpdateEvent(
            agent_id="a", seq=0, ts=0.0, turn_id="t", tool_call_id="c", name="x", partial=partial
        )
    )
    log.append(
        ToolResultEvent(
            agent_id="a", seq=1, ts=0.0, turn_id="t", tool_call_id="c", name="x", entry_id="e",
            result=ToolResult.ok("done"),
        )
    )  # fmt: skip
    events, more = log.read(-1)
    log.close()
    assert [e.type for e in events] == ["tool_result"]
    assert not more
