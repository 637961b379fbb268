"""AgentChannel: the coordinator's line to one agent kernel, through the kernel manager's client.

It attaches as an `observer` (never a responder: a child's permission asks still fall to its
headless policy when no person is attached) — or as `interactive` when it relays a child's
asks to the parent's people (relay.py) — sends per-agent commands on that comm and reads the
agent's events from IOPub. The kernel manager's own client is used, so the same code
reaches local kernels and kernels a remote gateway hosts (there with the gateway's auth
header: remote_client.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from jupyter_server.utils import ensure_async

from shard_core.protocol.link import AgentLink
from shard_kernel.agent_client import AgentConnection, ClientTransport, LinkError, LinkTimeoutError
from shard_kernel.gateway.jobs.remote_client import kernel_client
from shard_kernel.gateway.kernel_command import iopub

READY_SECONDS = 60.0
REPLY_SECONDS = 30.0


class ChannelError(RuntimeError):
    """The agent kernel could not be reached or refused a command."""


class AgentChannel:
    def __init__(
        self, kernel_manager: Any, kernel_id: str, label: str, role: str = "observer"
    ) -> None:
        self.km = kernel_manager
        self.kernel_id = kernel_id
        self.label = label
        self.role = role
        self.comm_id = f"shard-coordinator-{uuid.uuid4().hex[:8]}"
        """this client's id (and its comms' prefix)"""
        self.link = AgentLink(
            self.comm_id,
            role="interactive" if role == "interactive" else "observer",
            label=label,
            replay=False,  # from the attach on: the coordinator follows what it starts
            heartbeat=role == "interactive",  # a responder counts only while it is heard from
        )
        self._client: Any = None
        self._conn: AgentConnection | None = None
        self._events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._expected: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[Any]]] = []

    async def open(self) -> dict[str, Any]:
        """Connect, attach (as an observer unless told); returns the attach snapshot."""
        self._client = kernel_client(self.km.get_kernel(self.kernel_id))
        await ensure_async(self._client.start_channels())
        try:
            await asyncio.wait_for(ensure_async(self._client.wait_for_ready()), READY_SECONDS)
        except (TimeoutError, RuntimeError) as exc:
            raise ChannelError(f"the agent kernel did not answer: {exc}") from None
        transport = ClientTransport(self._client, self.link, comm_prefix=self.comm_id)
        self._conn = AgentConnection(
            transport, iopub(self._client, timeout=None), on_events=self._on_events
        )
        self._conn.start()
        try:
            snapshot = await self._conn.attach(within=REPLY_SECONDS)
        except LinkTimeoutError:
            raise
        except LinkError as exc:
            raise ChannelError(str(exc)) from None
        return snapshot.model_dump(mode="json")

    async def command(
        self, command: dict[str, Any], seconds: float = REPLY_SECONDS
    ) -> dict[str, Any]:
        """Send a per-agent command and wait (at most `seconds`) for its reply."""
        if self._conn is None:
            raise ChannelError("the channel is not open")
        try:
            reply = await self._conn.request(command, within=seconds)
        except LinkTimeoutError:
            raise
        except LinkError as exc:
            raise ChannelError(str(exc)) from None
        return reply.model_dump(mode="json")

    def expect(self, match: Callable[[dict[str, Any]], bool]) -> asyncio.Future[dict[str, Any]]:
        """The first event from now on that `match`es (it still goes to `events()` too)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._expected.append((match, future))
        return future

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The agent's events from the attach on, in seq order (gaps synced), each once."""
        while True:
            yield await self._events.get()

    def interrupt(self, kind: str) -> None:
        """Hand `events()` a marker event of this kind, after the events already read."""
        self._events.put_nowait({"type": kind})

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.aclose()
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.stop_channels()
            self._client = None

    def _on_events(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self._match(event)
            self._events.put_nowait(event)

    def _match(self, event: dict[str, Any]) -> None:
        for match, future in list(self._expected):
            if future.done():
                self._expected.remove((match, future))
            elif match(event):
                future.set_result(event)
                self._expected.remove((match, future))
