"""An edit's result never waits for diagnostics: a diagnosing code intelligence that has not
answered yet holds nothing back; what it finds later is context the next request carries."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from shard_core.contracts import ExtensionApi
from shard_core.contracts.codeintel import DIAGNOSTICS_HEADING, Symbol
from shard_core.protocol.events import ContextInjectedEvent, Event, ToolResultEvent
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.code_index.conftest import make_agent, results


class HeldDiagnostics:
    """A diagnosing code intelligence that answers only when the test lets it."""

    name = "held"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.asked: list[list[str]] = []
        self.warmed = 0

    def outline(self, path: str) -> list[Symbol]:
        return []

    def symbol(self, name: str) -> list[Symbol]:
        return []

    def signatures(self, path: str) -> list[str]:
        return []

    def invalidate(self, path: str) -> None:
        return None

    async def warm(self) -> None:
        self.warmed += 1

    async def diagnose(self, paths: Sequence[str]) -> list[str]:
        self.asked.append(list(paths))
        await self.release.wait()
        return [f"{DIAGNOSTICS_HEADING}:", "m.py:1:5: error: planted [held]"]


async def test_the_edit_result_is_logged_before_the_diagnostics_answer(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "m.py").write_text("x = 1\n")
    held = HeldDiagnostics()

    def install(api: ExtensionApi) -> None:
        api.register_code_intelligence(held)

    edit = {"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}
    provider = FunctionProvider(scripted({"tool_calls": [("edit", edit)]}, "edited", "seen"))
    agent = await make_agent(tmp_path, provider, extensions=[("test.held", install)])
    events: list[Event] = []
    agent.events.subscribe(events.append)
    try:
        await agent.run("edit it")  # ends while diagnose is still held
        [(_, result)] = results(agent)
        assert result.text == "edited m.py: 1 replacement, +1 -1 lines"
        assert DIAGNOSTICS_HEADING not in result.text
        assert held.asked == [[str((tmp_path / "ws" / "m.py").resolve())]]
        assert held.warmed == 1  # beside the first turn
        assert not any(isinstance(e, ContextInjectedEvent) for e in events)
        held.release.set()
        await asyncio.gather(*agent.session.follow_ups)
        await agent.run("and now?")
    finally:
        await agent.close()
    assert held.warmed == 1  # once per session
    [injected] = [e for e in events if isinstance(e, ContextInjectedEvent)]
    edited = next(e for e in events if isinstance(e, ToolResultEvent))
    assert injected.seq > edited.seq
    assert injected.label == "diagnostics after edit m.py"
    carried = [b.text for m in provider.requests[2].messages for b in m.content if b.type == "text"]
    assert any("m.py:1:5: error: planted [held]" in text for text in carried)


async def test_a_closing_agent_cancels_a_check_still_waiting(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "m.py").write_text("x = 1\n")
    held = HeldDiagnostics()

    def install(api: ExtensionApi) -> None:
        api.register_code_intelligence(held)

    edit = {"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}
    provider = FunctionProvider(scripted({"tool_calls": [("edit", edit)]}))
    agent = await make_agent(tmp_path, provider, extensions=[("test.held", install)])
    await agent.run("edit it")
    waiting = list(agent.session.follow_ups)
    assert waiting
    await agent.close()
    assert any(task.cancelled() for task in waiting)  # the held check
    assert agent.session.follow_ups == set()
