"""Through the SDK: a python_exec cell that prints for ~2 s reaches the client as `tool_update`
events (its output so far and a progress descriptor) before its `tool_result`."""

from __future__ import annotations

from pathlib import Path

from shard_core.protocol.events import Event, ToolResultEvent, ToolUpdateEvent, TurnEndEvent
from shard_core.types.render import ProgressDescriptor
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.integration.notebook_tools.conftest import AgentFactory

TICKS = "import time\nfor i in range(8):\n    print('tick', i, flush=True)\n    time.sleep(0.25)"


async def test_a_long_cell_streams_tool_updates_before_its_result(
    make_agent: AgentFactory, work: Path
) -> None:
    provider = FunctionProvider(scripted({"tool_calls": [("python_exec", {"code": TICKS})]}, "ok"))
    agent = await make_agent(provider)
    try:
        events: list[Event] = [e async for e in agent.prompt("count to eight slowly")]
    finally:
        await agent.close()
    end = events[-1]
    assert isinstance(end, TurnEndEvent)
    assert end.reason == "completed", [e for e in events if e.type == "error"]
    [result] = [e for e in events if isinstance(e, ToolResultEvent)]
    assert "tick 7" in result.result.text
    at = events.index(result)
    updates = [e for e in events[:at] if isinstance(e, ToolUpdateEvent)]
    assert updates, "no tool_update before the result"
    assert all(u.tool_call_id == result.tool_call_id for u in updates)
    first = updates[0]
    assert first.name == "python_exec"
    assert first.partial.text.startswith("[stdout]\ntick 0")
    assert "tick 7" not in first.partial.text  # sent while the loop was still going
    progress = first.partial.render[0]
    assert isinstance(progress, ProgressDescriptor)
    assert progress.label.startswith("python_exec: running ")
    assert not any(isinstance(e, ToolUpdateEvent) for e in events[at:])  # the result wins
