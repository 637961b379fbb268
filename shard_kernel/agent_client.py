"""The transports of the per-agent protocol client (`shard_core.protocol.link.AgentLink`).

`AgentLink` is the state machine (attach and paging, reply correlation, seq gap → `sync`,
heartbeats); here it meets Jupyter:

- `SocketTransport` carries it over jupyter_server's kernel WebSocket (`KernelSocket`, the v1
  subprotocol or JSON) — `shard agents attach`, `%shard attach`;
- `ClientTransport` over a jupyter_client kernel client (blocking or async: only its shell
  channel's `send` is used) — the gateway's coordinator, its REST commands, `shard demo`.

Both turn the link's `Outgoing` messages into `comm_open` / `comm_msg` / `comm_close` on the
shell channel, and `feed(message)` hands the link what concerns it: events on the events comm
(a batch unpacked) and replies on the client's own comm; it returns the link's outputs, or None
for a message that is not the link's (a cell's output, `execute_reply`, ...).

`AgentConnection` is the asyncio side most clients want: it reads a transport's messages,
calls back with events in seq order (gaps already filled), resolves a future per command, and
runs the link's timers. A minimal client:

    sock = await KernelSocket.open(url, kernel_id, token=token)
    link = AgentLink("my-client", role="observer")
    conn = AgentConnection(SocketTransport(sock, link), sock.recv, on_events=print)
    conn.start()
    snapshot = await conn.attach()  # raises LinkError when refused
    reply = await conn.request({"type": "set_mode", "mode": "plan"})
    await conn.aclose()  # closes the comm (the socket is the caller's)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from shard_core.protocol.commands import Command, CommandReply, SnapshotReply
from shard_core.protocol.events import EVENT_BATCH_TYPE
from shard_core.protocol.link import (
    COMM_TARGET,
    EVENTS_COMM_ID,
    AgentLink,
    Attached,
    EventsReady,
    Output,
    Replied,
)
from shard_kernel.gateway.client import KernelSocket, msg_type

log = logging.getLogger("shard_kernel.agent_client")
REPLY_SECONDS = 10.0

Reply = CommandReply | SnapshotReply
OnEvents = Callable[[list[dict[str, Any]]], None]
OnAttached = Callable[[SnapshotReply], None]
OnMessage = Callable[[dict[str, Any]], None]


class LinkError(RuntimeError):
    """The agent refused (the message says why), did not answer in time, or is gone."""


class LinkTimeoutError(LinkError, TimeoutError):
    """No reply came in time."""


class LinkTransport:
    """One AgentLink over Jupyter comm messages; a subclass says how a shell message is sent."""

    def __init__(self, link: AgentLink, *, comm_prefix: str = "comm") -> None:
        self.link = link
        self.comm_prefix = comm_prefix
        self.comm_id = ""
        """the open comm ('' before the first attach and after a close)"""

    def shell(self, kind: str, content: dict[str, Any]) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def flush(self) -> None:
        """Send what the link has queued."""
        for out in self.link.outgoing():
            if out.kind == "open":
                self.comm_id = f"{self.comm_prefix}-{uuid.uuid4().hex[:12]}"
                content = {"comm_id": self.comm_id, "target_name": COMM_TARGET, "data": out.data}
                self.shell("comm_open", content)
            elif out.kind == "msg" and self.comm_id:
                self.shell("comm_msg", {"comm_id": self.comm_id, "data": out.data})
            elif out.kind == "close" and self.comm_id:
                comm_id, self.comm_id = self.comm_id, ""
                self.shell("comm_close", {"comm_id": comm_id, "data": {}})

    def feed(self, message: dict[str, Any]) -> list[Output] | None:
        """The link's outputs for one received message; None when it is not the link's."""
        if msg_type(message) != "comm_msg":
            return None
        content = message.get("content") or {}
        comm_id, data = content.get("comm_id"), content.get("data")
        out: list[Output] = []
        if comm_id == EVENTS_COMM_ID:
            batch = isinstance(data, dict) and data.get("type") == EVENT_BATCH_TYPE
            events: Any = data.get("events") if batch else [data]  # type: ignore[union-attr]
            for event in events or []:
                if isinstance(event, dict):
                    out += self.link.receive_event(event)
        elif comm_id and comm_id == self.comm_id:
            out = self.link.receive_reply(data)
        else:
            return None
        self.flush()
        return out


class SocketTransport(LinkTransport):
    """Over jupyter_server's kernel WebSocket (`KernelSocket`)."""

    def __init__(self, sock: KernelSocket, link: AgentLink, *, comm_prefix: str = "comm") -> None:
        super().__init__(link, comm_prefix=comm_prefix)
        self.sock = sock

    def shell(self, kind: str, content: dict[str, Any]) -> str:
        return self.sock.send("shell", kind, content)


class ClientTransport(LinkTransport):
    """Over a jupyter_client kernel client (its IOPub messages are fed by the caller)."""

    def __init__(self, client: Any, link: AgentLink, *, comm_prefix: str = "comm") -> None:
        super().__init__(link, comm_prefix=comm_prefix)
        self.client = client

    def shell(self, kind: str, content: dict[str, Any]) -> str:
        msg = self.client.session.msg(kind, content)
        self.client.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])


class AgentConnection:
    """asyncio driver of one transport: `start()` reads messages with `recv` (None: closed);
    events go to `on_events` (in seq order, each once), attach snapshots to `on_attached`, and
    every other message to `on_other` — all called on the loop, in stream order."""

    def __init__(
        self,
        transport: LinkTransport,
        recv: Callable[[], Awaitable[dict[str, Any] | None]],
        *,
        on_events: OnEvents | None = None,
        on_attached: OnAttached | None = None,
        on_other: OnMessage | None = None,
        on_closed: Callable[[], None] | None = None,
    ) -> None:
        self.transport = transport
        self.link = transport.link
        self.recv = recv
        self.on_events = on_events
        self.on_attached = on_attached
        self.on_other = on_other
        self.on_closed = on_closed
        self.closed = False
        self._replies: dict[str, tuple[asyncio.Future[Reply], Callable[[Reply], None] | None]] = {}
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read()), loop.create_task(self._timers())]

    async def attach(self, role: Any = None, *, within: float = REPLY_SECONDS) -> SnapshotReply:
        """Attach (again, on a new comm); the snapshot, or LinkError when refused."""
        command_id = self.link.attach(role)
        reply = await self._wait(command_id, "attach", within)
        if not isinstance(reply, SnapshotReply):
            raise LinkError(reply.message or "the agent refused the attach")
        return reply

    def send(self, command: Command | dict[str, Any]) -> str:
        """Send a command without waiting; its id."""
        command_id = self.link.command(command)
        self.transport.flush()
        return command_id

    async def request(
        self,
        command: Command | dict[str, Any],
        *,
        within: float = REPLY_SECONDS,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> Reply:
        """Send a command and wait for its reply; `on_reply` runs in stream order when it
        comes (before any later event). LinkError when none came within `within` s."""
        if self.closed or not self.transport.comm_id:
            raise LinkError("not attached to the agent")
        command_id = self.link.command(command)
        kind = command.get("type") if isinstance(command, dict) else command.type
        return await self._wait(command_id, str(kind), within, on_reply)

    async def _wait(
        self,
        command_id: str,
        kind: str,
        within: float,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> Reply:
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._replies[command_id] = (future, on_reply)
        try:
            self.transport.flush()
            return await asyncio.wait_for(future, within)
        except TimeoutError:
            raise LinkTimeoutError(f"the agent did not answer {kind} within {within:g} s") from None
        except OSError as exc:  # tornado's WebSocketClosedError among them
            raise LinkError(f"the connection to the agent is closed ({exc})") from None
        finally:
            self._replies.pop(command_id, None)

    def detach(self) -> None:
        """Close the comm (the connection stays the caller's)."""
        self.link.detach()
        with contextlib.suppress(Exception):  # a socket the server already closed
            self.transport.flush()

    async def aclose(self) -> None:
        self.detach()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._closed("detached")

    def handle(self, message: dict[str, Any]) -> None:
        """One received message (the reader calls this; a caller that reads itself may too)."""
        outputs = self.transport.feed(message)
        if outputs is None:
            if self.on_other is not None:
                self.on_other(message)
            return
        self.dispatch(outputs)

    def dispatch(self, outputs: list[Output]) -> None:
        for output in outputs:
            if isinstance(output, EventsReady):
                if self.on_events is not None:
                    self.on_events(output.events)
            elif isinstance(output, Attached):
                if self.on_attached is not None:
                    self.on_attached(output.snapshot)
            elif isinstance(output, Replied):
                future, on_reply = self._replies.pop(output.command_id, (None, None))
                if future is None or future.done():
                    continue
                if on_reply is not None:
                    on_reply(output.reply)
                future.set_result(output.reply)

    async def _read(self) -> None:
        try:
            while True:
                try:
                    message = await self.recv()
                except ValueError:  # a frame that does not decode: skip it, keep the stream
                    log.warning("shard: an agent sent a frame that does not decode")
                    continue
                if message is None:
                    break
                try:
                    self.handle(message)
                except Exception:  # one bad message must not stop the stream
                    log.exception("shard: a message from an agent could not be handled")
        finally:
            self._closed("the connection to the agent closed")

    async def _timers(self) -> None:
        while True:
            due = self.link.next_timer()
            wait = 1.0 if due is None else min(1.0, max(0.0, due - self.link.clock()))
            await asyncio.sleep(wait)
            if due is not None and self.link.clock() >= due:
                self.dispatch(self.link.handle_timer())
                with contextlib.suppress(Exception):
                    self.transport.flush()

    def _closed(self, why: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.link.lost()
        error = LinkError(why)
        for future, _ in list(self._replies.values()):
            if not future.done():
                future.set_exception(error)
        self._replies.clear()
        if self.on_closed is not None:
            self.on_closed()
