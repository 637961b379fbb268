"""`shard agents attach --prompt`: when the run ends. A prompt's cell can be answered (reply, then
idle) before its turn's events reach this client; the reply's metadata says a turn ran, so the
client waits for the turn's end, within a bound. A `/command` that ran no turn ends on idle."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest

from shard_core.protocol.link import EVENTS_COMM_ID, AgentLink
from shard_kernel.agent_client import SocketTransport
from shard_kernel.exit_codes import ExitCode
from shard_kernel.remote import terminal
from shard_kernel.remote.terminal import TerminalSession

CELL = "cell-1"


class ScriptedSocket:
    """A kernel socket that answers with a script of messages, then waits forever."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        self.script = list(script)
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, channel: str, kind: str, content: dict[str, Any]) -> str:
        self.sent.append((kind, content))
        data = content.get("data") or {}
        if kind == "comm_msg" and data.get("type") == "sync":  # a catch-up: nothing after
            page = {
                "type": "snapshot",
                "command_id": data["id"],
                "agent_id": "a1",
                "status": "idle",
                "mode": "build",
                "model": "m",
                "last_seq": -1,
            }
            reply = {"comm_id": content["comm_id"], "data": page}
            self.script.append(_cell("comm_msg", reply))
        return f"sent-{len(self.sent)}"

    async def recv(self) -> dict[str, Any] | None:
        if self.script:
            await asyncio.sleep(0)
            return self.script.pop(0)
        await asyncio.Event().wait()
        return None


def _cell(kind: str, content: dict[str, Any], metadata: dict[str, Any] | None = None) -> Any:
    return {
        "header": {"msg_type": kind},
        "parent_header": {"msg_id": CELL},
        "content": content,
        "metadata": metadata or {},
    }


def _event(seq: int, **fields: Any) -> dict[str, Any]:
    data = {"agent_id": "a1", "seq": seq, "ts": 1.0, **fields}
    return _cell("comm_msg", {"comm_id": EVENTS_COMM_ID, "data": data})


REPLY_TURN = _cell("execute_reply", {"status": "ok"}, {"shard": {"turn": True}})
REPLY_COMMAND = _cell("execute_reply", {"status": "ok"})
IDLE = _cell("status", {"execution_state": "idle"})
TURN = [
    _event(0, type="turn_start", turn_id="t1", prompt="say hello"),
    _event(
        1,
        type="message_complete",
        turn_id="t1",
        entry_id="e1",
        message={"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
    ),
    _event(2, type="turn_end", turn_id="t1", reason="completed"),
]


async def _follow(script: list[dict[str, Any]]) -> tuple[int, str]:
    out = io.StringIO()
    session = TerminalSession(None, "a1", out=out, stdin=io.StringIO())  # type: ignore[arg-type]
    session._cell = CELL
    sock = ScriptedSocket(script)
    link = AgentLink("terminal-x", since=-1, heartbeat=False)
    link.attached = True  # attached: events flow (the attach itself is the link's own test)
    transport = SocketTransport(sock, link)  # type: ignore[arg-type]
    transport.comm_id = "terminal-comm"
    code = await asyncio.wait_for(
        session._follow(sock, transport),  # type: ignore[arg-type]
        10,
    )
    return code, out.getvalue()


async def test_a_turn_answered_before_its_events_waits_for_its_end() -> None:
    code, shown = await _follow([REPLY_TURN, IDLE, *TURN])
    assert code == ExitCode.OK
    assert "Hello." in shown


async def test_a_turn_whose_events_come_first_ends_at_its_reply() -> None:
    code, shown = await _follow([*TURN, REPLY_TURN, IDLE])
    assert code == ExitCode.OK
    assert "Hello." in shown


async def test_a_command_ends_once_its_cell_is_idle() -> None:
    printed = _cell("display_data", {"data": {"text/plain": "clients: 1"}, "metadata": {}})
    code, shown = await _follow([REPLY_COMMAND, printed, IDLE])
    assert code == ExitCode.OK
    assert "clients: 1" in shown


async def test_a_turn_end_that_never_comes_is_waited_for_within_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(terminal, "TURN_END_WAIT_S", 0.2)
    code, shown = await _follow([REPLY_TURN, IDLE])
    assert code == ExitCode.OK  # the cell's own status
    assert "did not arrive" in shown
