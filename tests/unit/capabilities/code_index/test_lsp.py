"""Language-server diagnostics after an edit: with pyright (installed in the dev environment)
a type error an edit introduces follows the edit's result (which does not wait for the server)
as injected context the next request carries, is in code_diagnostics and in the compaction's
Outstanding Context; with no server it is one line and nothing fails."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

from shard_core.capabilities.code_index import CodeIndexCapability
from shard_core.capabilities.code_index.extension import server_command
from shard_core.capabilities.code_index.lsp import NO_SERVER, find_server
from shard_core.contracts.codeintel import DIAGNOSTICS_HEADING
from shard_core.contracts.compactor import CompactionInput
from shard_core.engine.compaction import DeterministicCompactor
from shard_core.protocol.events import ContextInjectedEvent, Event, ToolResultEvent
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.capabilities.code_index.conftest import make_agent, results

SOURCE = "def total(xs: list[int]) -> int:\n    return sum(xs)\n"
BREAK = {"path": "m.py", "old_string": "return sum(xs)", "new_string": 'return "none"'}
FIX = {"path": "m.py", "old_string": 'return "none"', "new_string": "return len(xs)"}


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "m.py").write_text(SOURCE)
    return ws


@pytest.mark.skipif(find_server() is None, reason="no Python language server installed")
async def test_a_type_error_from_an_edit_follows_its_result_into_the_next_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace(tmp_path)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    server = find_server()
    assert server is not None
    capability = CodeIndexCapability(ws, home=tmp_path / "home", server=server, lsp_timeout=120)
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("edit", BREAK)]},
            "broken",
            {"tool_calls": [("code_diagnostics", {"path": "m.py"})]},
            {"tool_calls": [("edit", FIX)]},
            {"tool_calls": [("code_diagnostics", {})]},
        )
    )
    agent = await make_agent(tmp_path, provider, extensions=[("test.code", capability)])
    events: list[Event] = []
    agent.events.subscribe(events.append)
    try:
        await agent.run("break it")
        await asyncio.gather(*agent.session.follow_ups)  # the server's start, the edit's check
        assert capability.code.diagnostics.server is not None
        await agent.run("look, fix it")
        await asyncio.gather(*agent.session.follow_ups)
        branch = agent.session.store.branch()
    finally:
        await agent.close()
    assert capability.code.diagnostics.server._client is None  # stopped with the agent
    assert list(temp.iterdir()) == []  # the server's temp files went with it
    [(_, broke), (_, looked), (_, fixed), (_, after)] = results(agent)
    assert broke.text == "edited m.py: 1 replacement, +1 -1 lines"  # the result did not wait
    [injected] = [e for e in events if isinstance(e, ContextInjectedEvent)]
    edited = next(e for e in events if isinstance(e, ToolResultEvent) and e.name == "edit")
    assert injected.seq > edited.seq
    assert (injected.kind, injected.label) == ("output", "diagnostics after edit m.py")
    heading, error = injected.text.splitlines()
    assert heading == f"{DIAGNOSTICS_HEADING}:"
    assert error.startswith("m.py:2:12: error: Type \"Literal['none']\" is not assignable to")
    carried = [b.text for m in provider.requests[2].messages for b in m.content if b.type == "text"]
    assert any(error in text for text in carried)  # the next request has it
    assert error in looked.text
    assert fixed.text == "edited m.py: 1 replacement, +1 -1 lines"
    assert after.text == "no errors reported for changed files"  # the fix brought none
    compactor = DeterministicCompactor(keep_recent_tokens=50)
    upto = next(i for i, e in enumerate(branch) if e.id == injected.entry_id) + 2
    tiny = CompactionInput(branch[:upto], 5_000, 100_000, 50_000, "manual", 0, force=True)
    details = compactor.compact(tiny)  # a section on a tiny session: forced
    assert details is not None
    outstanding = details.summary.split("## Outstanding Context\n")[1].split("\n\n")[0]
    assert outstanding.startswith(f"- [ERROR] [diagnostics] {error[:40]}")


async def test_without_a_server_it_is_one_line_and_edits_go_on(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    capability = CodeIndexCapability(ws, home=tmp_path / "home", server=None)
    provider = FunctionProvider(
        scripted({"tool_calls": [("edit", BREAK)]}, {"tool_calls": [("code_diagnostics", {})]})
    )
    agent = await make_agent(tmp_path, provider, extensions=[("test.code", capability)])
    try:
        await agent.run("break it")
    finally:
        await agent.close()
    [(_, edit), (_, diagnostics)] = results(agent)
    assert edit.text == "edited m.py: 1 replacement, +1 -1 lines"
    assert not diagnostics.is_error
    assert diagnostics.text == NO_SERVER
    assert "\n" not in NO_SERVER
    assert 'return "none"' in (ws / "m.py").read_text()


async def test_a_server_that_cannot_start_is_a_status_not_a_failure(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    false = shutil.which("false")
    assert false is not None
    capability = CodeIndexCapability(ws, server=[false], lsp_timeout=30)
    provider = FunctionProvider(scripted({"tool_calls": [("edit", BREAK)]}))
    agent = await make_agent(tmp_path, provider, extensions=[("test.code", capability)])
    try:
        await agent.run("break it")
        await asyncio.gather(*agent.session.follow_ups)  # the start, then the edit's check
    finally:
        await agent.close()
    [(_, edit)] = results(agent)
    assert edit.text == "edited m.py: 1 replacement, +1 -1 lines"
    assert capability.code.diagnostics.status.startswith("false: failed: ")


def test_the_setting_chooses_the_server() -> None:
    assert server_command({"SHARD_LSP": "off"}) is None
    assert server_command({"SHARD_LSP": "pylsp -v"}) == ["pylsp", "-v"]
    assert server_command({}) == find_server()
