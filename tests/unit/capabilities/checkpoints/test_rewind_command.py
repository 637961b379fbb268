"""The `rewind` per-agent command every transport (REST via the kernel, comms, stdio) sends:
list, diff with descriptors, a refused rewind with the conflicting paths, undo; observers may
only look."""

from __future__ import annotations

from pathlib import Path

from shard_core.protocol.commands import RewindCommand
from shard_core.protocol.events import Event, RewindEvent
from shard_kernel.agent_commands import run_common
from tests.unit.capabilities.checkpoints.conftest import scripted_agent, write_script


async def test_the_rewind_command(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a = 1\n")
    edit = {"name": "edit", "input": {"path": "a.txt", "old_string": "1", "new_string": "2"}}
    agent = await scripted_agent(tmp_path, ws, write_script(tmp_path / "s.json", [[edit]]))
    seen: list[Event] = []
    agent.events.subscribe(seen.append)
    try:
        await agent.run("edit a")
        listing = run_common(agent, RewindCommand(action="list"), "observer")
        assert listing is not None
        assert "| 1 | edit a | 1 |" in listing.message
        diff = run_common(agent, RewindCommand(action="diff", turn=1), "observer")
        assert diff is not None
        assert diff.ok
        assert [d["kind"] for d in diff.data["render"]] == ["text", "diff"]  # type: ignore[union-attr]
        watcher = run_common(agent, RewindCommand(target="1"), "observer")
        assert watcher is not None
        assert not watcher.ok
        assert "cannot change files" in watcher.message

        (ws / "a.txt").write_text("a = 2  # mine\n")
        refused = run_common(agent, RewindCommand(target="1", scope="code"), "interactive")
        assert refused is not None
        assert not refused.ok
        assert refused.data["conflicts"] == ["a.txt"]
        assert (ws / "a.txt").read_text() == "a = 2  # mine\n"
        forced = run_common(
            agent, RewindCommand(target="1", scope="code", choice="force"), "interactive"
        )
        assert forced is not None
        assert forced.ok
        assert forced.data["restored"] == ["a.txt"]
        assert (ws / "a.txt").read_text() == "a = 1\n"
        [event] = [e for e in seen if isinstance(e, RewindEvent)]
        assert event.restored == ["a.txt"]
        assert event.entry_id == forced.data["entry_id"]
        undo = run_common(agent, RewindCommand(action="undo"), "interactive")
        assert undo is not None
        assert undo.ok
        assert (ws / "a.txt").read_text() == "a = 2  # mine\n"
        bad = run_common(agent, RewindCommand(target="5"), "interactive")
        assert bad is not None
        assert "unknown turn 5" in bad.message
        reply = agent.session.store.branch()[-1].id  # the last entry: no turn starts there
        not_a_turn = run_common(agent, RewindCommand(action="diff", target=reply), "observer")
        assert not_a_turn is not None
        assert not not_a_turn.ok
        assert not_a_turn.message == (
            f"entry {reply} does not start a turn; name a turn or its prompt"
        )
    finally:
        await agent.close()
