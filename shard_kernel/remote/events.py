"""EventFeed: a client of the gateway's `/shard/api/events`, resuming where it left off.

It keeps the agent list current from the pushed events (`agents`), reconnecting with the last
`seq` and `epoch` it saw, so a dropped connection costs no event; when the gateway says it cannot
resume (`gap`), the snapshot it sends instead replaces the list. `next_event` returns each event
as it arrives (snapshots included). The token travels in the Authorization header.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from pydantic import TypeAdapter, ValidationError
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from shard_core.protocol import AgentInfo, OrchestratorEvent
from shard_core.protocol.orchestrator import AgentsSnapshotEvent
from shard_core.types.base import DEFERRED
from shard_kernel.gateway.client import close_websocket
from shard_kernel.remote.link import TIMEOUT, GatewayError, GatewayLink

EVENTS_PATH = "shard/api/events"
EVENTS: TypeAdapter[OrchestratorEvent] = TypeAdapter(OrchestratorEvent, config=DEFERRED)


@dataclass
class EventFeed:
    link: GatewayLink
    epoch: str | None = None
    last_seq: int | None = None
    agents: dict[str, AgentInfo] = field(default_factory=dict[str, AgentInfo])
    """The agents as the events so far describe them, by id."""
    reconnects: int = 0
    gaps: int = 0
    _conn: WebSocketClientConnection | None = None

    def url(self) -> str:
        parts = urlsplit(self.link.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        query: dict[str, str] = {}
        if self.epoch is not None and self.last_seq is not None:
            query = {"epoch": self.epoch, "since": str(self.last_seq)}
        tail = f"?{urlencode(query)}" if query else ""
        return f"{scheme}://{parts.netloc}{parts.path}{EVENTS_PATH}{tail}"

    async def connect(self, within: float = TIMEOUT) -> None:
        """Open (or reopen, resuming) the subscription; GatewayError says why it failed."""
        await self.close()
        headers = {"Authorization": f"token {self.link.token}"} if self.link.token else {}
        request = HTTPRequest(self.url(), headers=headers, connect_timeout=within)
        try:
            self._conn = await asyncio.wait_for(websocket_connect(request), within)
        except HTTPClientError as exc:
            hint = ": check the token" if exc.code in (401, 403) else ""
            raise GatewayError(
                f"the gateway at {self.link.url} refused the event subscription "
                f"(HTTP {exc.code}){hint}"
            ) from None
        except (TimeoutError, OSError) as exc:
            raise GatewayError(
                f"cannot subscribe to the gateway's events at {self.link.url}: {type(exc).__name__}"
            ) from None

    async def next_event(self, reconnect: bool = True) -> OrchestratorEvent:
        """The next event, applied to `agents`; on a dropped connection, resume once."""
        while True:
            message = None if self._conn is None else await self._conn.read_message()
            if message is None:
                if not reconnect:
                    raise GatewayError(f"the event subscription to {self.link.url} closed")
                self.reconnects += 1
                await self.connect()
                continue
            try:
                event = EVENTS.validate_python(json.loads(message))
            except (ValueError, ValidationError):
                continue  # an event this client does not know (a newer gateway): skip it
            self.apply(event)
            return event

    def apply(self, event: OrchestratorEvent) -> None:
        if isinstance(event, AgentsSnapshotEvent):
            self.gaps += int(event.gap)
            self.epoch = event.epoch
            self.agents = {a.id: a for a in event.agents}
            self.last_seq = event.seq
            return
        self.last_seq = event.seq
        row: Any = getattr(event, "agent", None)
        if isinstance(row, AgentInfo):
            self.agents[row.id] = row

    def drop(self) -> None:
        """Cut the connection without a goodbye (tests: what a network failure does)."""
        if self._conn is not None and self._conn.protocol is not None:
            stream = self._conn.protocol.stream
            if stream is not None:
                stream.close()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await close_websocket(conn)
