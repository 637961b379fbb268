"""The WebSocket protocol clients survive a seq gap: a real gateway, a real agent kernel, and some
of its events dropped on their way to one client (a lossy hop after `KernelSocket.recv`). The
lossy client syncs the gap and ends with the same transcript (the logged events, in seq order)
as a client of the same agent that lost nothing.

- `%shard attach`'s RemoteAgent (its widget's transcript), beside a gap-free RemoteAgent;
- `shard agents attach --prompt`'s TerminalSession (the events it rendered), beside a
  gap-free TerminalSession following the agent as an observer."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from shard_core.protocol import AgentInfo
from shard_kernel.gateway.client import KernelSocket
from shard_kernel.remote import RemoteAgent
from shard_kernel.remote.link import GatewayLink
from shard_kernel.remote.loop import LoopThread
from shard_kernel.remote.terminal import TerminalSession
from tests.integration.gateway.conftest import TOKEN, Server
from tests.integration.lossy import DROP, STEPS, Lossy, logged
from tests.integration.magics.conftest import create_agent, wait_until


class LossySockets:
    """KernelSocket.recv through a Lossy hop, for the sockets marked lossy (or, with `arm`,
    the next ones opened)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lossy = Lossy()
        self.sockets: set[int] = set()
        self.arm = 0
        recv, open_ = KernelSocket.recv, KernelSocket.open.__func__  # type: ignore[attr-defined]

        async def lossy_recv(sock: KernelSocket, within: float | None = None) -> Any:
            while True:
                message = await recv(sock, within)
                if message is None or id(sock) not in self.sockets:
                    return message
                kept = self.lossy.filter(message)
                if kept is not None:
                    return kept

        async def lossy_open(cls: type[KernelSocket], *args: Any, **kwargs: Any) -> Any:
            sock = await open_(cls, *args, **kwargs)
            if self.arm > 0:
                self.arm -= 1
                self.sockets.add(id(sock))
            return sock

        monkeypatch.setattr(KernelSocket, "recv", lossy_recv)
        monkeypatch.setattr(KernelSocket, "open", classmethod(lossy_open))


class Recording:
    """A TerminalSession's renderer that also keeps each event it was given."""

    def __init__(self, render: Any) -> None:
        self.render = render
        self.shown: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        self.shown.append(event.model_dump(mode="json"))
        self.render(event)

    def __getattr__(self, name: str) -> Any:  # style(), ... as the renderer has them
        return getattr(self.render, name)


def agent_in(workspace: Path, gateway: Server, name: str) -> AgentInfo:
    (workspace / "a.txt").write_text("hello\n")
    made = create_agent(gateway, workspace, name, STEPS)  # also the kernel's channels URL
    return AgentInfo.model_validate({k: v for k, v in made.items() if k in AgentInfo.model_fields})


def test_a_remote_agent_syncs_a_gap(
    gateway: Server, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = agent_in(workspace, gateway, "gappy")
    lossy = LossySockets(monkeypatch)
    loop = LoopThread()
    link = GatewayLink(gateway.url, TOKEN)
    reference, gappy = RemoteAgent(info, link, loop), RemoteAgent(info, link, loop)
    try:
        reference.open()
        seen = reference.widget()
        lossy.arm = 1
        gappy.open()
        seen_gappy = gappy.widget()
        end = reference.prompt("look at a.txt")
        assert end.result(timeout=120).reason == "completed"
        wait_until(
            lambda: "turn_end" in [e["type"] for e in seen_gappy.events],
            within=60,
            what="the lossy client's widget has the turn's end",
        )
        wait_until(lambda: "turn_end" in [e["type"] for e in seen.events], within=60)
    finally:
        gappy.close()
        reference.close()
        loop.close()
    assert sorted(e["type"] for e in lossy.lossy.dropped) == sorted(DROP)
    assert gappy.agent_link.gaps >= 1
    first = seen_gappy.events[0]["seq"]
    assert logged(list(seen_gappy.events)) == [
        x for x in logged(list(seen.events)) if x[0] >= first
    ]
    assert "turn_start" in [e["type"] for e in seen_gappy.events]


def test_a_terminal_session_syncs_a_gap(
    gateway: Server, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = agent_in(workspace, gateway, "gappy-terminal")
    lossy = LossySockets(monkeypatch)

    def recording(session: TerminalSession) -> list[dict[str, Any]]:
        recorder = Recording(session.render)
        session.render = recorder  # type: ignore[assignment]
        return recorder.shown

    async def run() -> tuple[int, list[dict[str, Any]], list[dict[str, Any]], str]:
        link = GatewayLink(gateway.url, TOKEN)
        reference = TerminalSession(link, info.id, role="observer", out=io.StringIO())
        seen = recording(reference)
        following = asyncio.ensure_future(reference.run(None))
        while reference._transport is None or not reference._transport.link.attached:  # pyright: ignore[reportPrivateUsage]
            if following.done():  # it failed before attaching: say why, do not wait forever
                following.result()
                raise AssertionError("the observer stopped before it attached")
            await asyncio.sleep(0.05)
        out = io.StringIO()
        gappy = TerminalSession(link, info.id, out=out, stdin=io.StringIO())
        shown = recording(gappy)
        lossy.arm = 1
        try:
            code = await asyncio.wait_for(gappy.run("look at a.txt"), 120)
            while not any(e["type"] == "turn_end" for e in seen):
                await asyncio.sleep(0.05)
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)
        return code, seen, shown, out.getvalue()

    code, seen, shown, text = asyncio.run(run())
    assert code == 0, text
    assert "the file says hello" in text
    assert sorted(e["type"] for e in lossy.lossy.dropped) == sorted(DROP)
    first, last = shown[0]["seq"], shown[-1]["seq"]  # the prompt's session leaves at its turn's end
    assert logged(shown) == [x for x in logged(seen) if first <= x[0] <= last]
    assert "turn_start" in [e["type"] for e in shown]
