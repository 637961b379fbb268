"""WsAgent: a test client of one agent through the server's kernel WebSocket (v1 subprotocol when
the server offers it, else JSON; `subprotocol=False` forces JSON)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from shard_kernel.gateway.client import KernelSocket, comm_reply, msg_type, shard_event
from tests.integration.gateway.conftest import Server


class WsAgent:
    def __init__(self, sock: KernelSocket, client_id: str) -> None:
        self.sock = sock
        self.client_id = client_id
        self.comm_id = ""
        self.events: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.closed = False

    @classmethod
    async def connect(
        cls, server: Server, kernel_id: str, client_id: str, **kwargs: Any
    ) -> WsAgent:
        kwargs.setdefault("token", server.token)
        sock = await KernelSocket.open(server.url, kernel_id, **kwargs)
        return cls(sock, client_id)

    async def attach(self, role: str = "interactive", since: int = -1) -> dict[str, Any]:
        data = {"role": role, "client_id": self.client_id, "since": since}
        self.comm_id = self.sock.open_comm(data)
        return await self.wait_reply("snapshot", start=len(self.replies))

    async def command(self, command: dict[str, Any], kind: str = "reply") -> dict[str, Any]:
        start = len(self.replies)
        self.sock.comm_send(self.comm_id, command)
        return await self.wait_reply(kind, start=start)

    async def answer(self, request_id: str, decision: str = "allow") -> dict[str, Any]:
        return await self.command(
            {
                "type": "permission_response",
                "request_id": request_id,
                "decision": decision,
                "client_id": self.client_id,
            }
        )

    def _sort(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if (event := shard_event(message)) is not None:
            self.events.append(event)
        elif self.comm_id and (reply := comm_reply(message, self.comm_id)) is not None:
            self.replies.append(reply)

    async def pump(self, within: float = 0.05) -> None:
        """Read whatever arrives until `within` seconds pass with nothing new."""
        while not self.closed:
            try:
                message = await self.sock.recv(within)
            except TimeoutError:
                return
            if message is None:
                self.closed = True
                return
            self._sort(message)

    async def wait_for(self, found: Callable[[], bool], within: float = 60.0) -> None:
        deadline = time.monotonic() + within
        while not found():
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                seen = [e["type"] for e in self.events][-20:]
                raise TimeoutError(f"{self.client_id}: not met; replies {self.replies}; {seen}")
            try:
                message = await self.sock.recv(min(left, 0.5))
            except TimeoutError:
                continue
            if message is None:
                self.closed = True
                continue
            self._sort(message)

    async def wait_event(self, kind: str, after: int = 0, within: float = 60.0) -> dict[str, Any]:
        def found() -> bool:
            return any(e["type"] == kind for e in self.events[after:])

        await self.wait_for(found, within)
        return next(e for e in self.events[after:] if e["type"] == kind)

    async def wait_reply(self, kind: str, start: int = 0, within: float = 60.0) -> dict[str, Any]:
        def found() -> bool:
            return any(r["type"] == kind for r in self.replies[start:])

        await self.wait_for(found, within)
        return next(r for r in self.replies[start:] if r["type"] == kind)

    async def wait_shell_reply(self, msg_id: str, within: float = 60.0) -> dict[str, Any]:
        def reply() -> dict[str, Any] | None:
            for m in self.messages:
                mine = m.get("channel") == "shell" and m["parent_header"].get("msg_id") == msg_id
                if mine and msg_type(m) == "execute_reply":
                    return m
            return None

        await self.wait_for(lambda: reply() is not None, within)
        found = reply()
        assert found is not None
        return found["content"]

    def seqs(self, after_seq: int = -1) -> list[tuple[int, str]]:
        return [(e["seq"], e["type"]) for e in self.events if e["seq"] > after_seq]

    def close(self) -> None:
        """Drop the connection now (a tab closing); the loop must run on for the handshake."""
        self.sock.close()
        self.closed = True

    async def aclose(self) -> None:
        """Close and wait for the socket to go (a test's loop may end right after)."""
        await self.sock.aclose()
        self.closed = True


async def gather_events(*clients: WsAgent, settle: float = 0.3) -> None:
    await asyncio.gather(*(c.pump(settle) for c in clients))
