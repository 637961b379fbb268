"""The widget composer's prompt on an in-process agent: a prompt that meets a running chain of
turns (a goal's next turn is chained between two, when `running` is briefly false) is refused
with the session's reason, not reported started and dropped; an idle agent starts the turn."""

from __future__ import annotations

from pathlib import Path

from shard_core.engine.config import ShardConfig
from shard_core.protocol.events import TurnEndEvent
from shard_kernel.inprocess import InProcessAgent


def test_a_prompt_between_chained_turns_is_refused_and_an_idle_one_starts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    host = InProcessAgent(
        "t", cwd=ws, model="scripted/demo", home=tmp_path / "home", config=ShardConfig(), env={}
    )
    session = host.agent.session
    try:
        host._on_loop(lambda: setattr(session, "_chained", True))  # between two chained turns
        refused = host.send_prompt("hello", [])
        assert (refused.ok, refused.message) == (
            False,
            "a turn is already running: steer it or abort it first",
        )
        host._on_loop(lambda: setattr(session, "_chained", False))

        started = host.send_prompt("hello", [])
        assert (started.ok, started.message) == (True, "started")
        [task] = host._started

        async def turn_end() -> TurnEndEvent:
            return await task

        end = host.call(turn_end(), timeout=30)  # the turn really ran
        assert end.type == "turn_end"
    finally:
        host.close()
