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

from shard_kernel.gateway.jobs.remote_client import kernel_client

EVENTS_COMM_ID = "shard-events"
READY_SECONDS = 60.0
REPLY_SECONDS = 30.0
HEARTBEAT_SECONDS = 20.0
"""Under the kernel's responder TTL (60 s), so an interactive coordinator keeps counting."""


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
        self._client: Any = None
        self._events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._snapshot: asyncio.Future[dict[str, Any]] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._expected: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[Any]]] = []

    async def open(self) -> dict[str, Any]:
        """Connect, attach as an observer; returns the attach snapshot."""
        self._client = kernel_client(self.km.get_kernel(self.kernel_id))
        await ensure_async(self._client.start_channels())
        try:
            await asyncio.wait_for(ensure_async(self._client.wait_for_ready()), READY_SECONDS)
        except (TimeoutError, RuntimeError) as exc:
            raise ChannelError(f"the agent kernel did not answer: {exc}") from None
        self._snapshot = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())
        data = {"role": self.role, "client_id": self.comm_id, "since": -1, "label": self.label}
        self._send("comm_open", {"comm_id": self.comm_id, "target_name": "shard", "data": data})
        snapshot = await asyncio.wait_for(self._snapshot, REPLY_SECONDS)
        if self.role == "interactive":  # a responder counts only while it is heard from
            self._heartbeat = asyncio.create_task(self._beat())
        return snapshot

    async def command(
        self, command: dict[str, Any], seconds: float = REPLY_SECONDS
    ) -> dict[str, Any]:
        """Send a per-agent command and wait (at most `seconds`) for its reply."""
        command_id = f"c-{uuid.uuid4().hex[:10]}"
        future = asyncio.get_running_loop().create_future()
        self._replies[command_id] = future
        self._send("comm_msg", {"comm_id": self.comm_id, "data": {**command, "id": command_id}})
        try:
            return await asyncio.wait_for(future, seconds)
        finally:
            self._replies.pop(command_id, None)

    def expect(self, match: Callable[[dict[str, Any]], bool]) -> asyncio.Future[dict[str, Any]]:
        """The first event from now on that `match`es (it still goes to `events()` too)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._expected.append((match, future))
        return future

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self._events.get()

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            beat = {"type": "heartbeat", "client_id": self.comm_id}
            with contextlib.suppress(Exception):
                self._send("comm_msg", {"comm_id": self.comm_id, "data": beat})

    def interrupt(self, kind: str) -> None:
        """Hand `events()` a marker event of this kind, after the events already read."""
        self._events.put_nowait({"type": kind})

    async def close(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._send("comm_close", {"comm_id": self.comm_id, "data": {}})
            with contextlib.suppress(Exception):
                self._client.stop_channels()
            self._client = None

    def _send(self, msg_type: str, content: dict[str, Any]) -> None:
        msg = self._client.session.msg(msg_type, content)
        self._client.shell_channel.send(msg)

    async def _read(self) -> None:
        while True:
            msg = await ensure_async(self._client.get_iopub_msg())
            if msg["header"]["msg_type"] != "comm_msg":
                continue
            content = msg["content"]
            data = content.get("data") or {}
            if content.get("comm_id") == EVENTS_COMM_ID:
                batch = data.get("events") if data.get("type") == "event_batch" else None
                for event in batch if batch is not None else [data]:
                    self._match(event)
                    self._events.put_nowait(event)
            elif content.get("comm_id") == self.comm_id:
                self._reply(data)

    def _match(self, event: dict[str, Any]) -> None:
        for match, future in list(self._expected):
            if future.done():
                self._expected.remove((match, future))
            elif match(event):
                future.set_result(event)
                self._expected.remove((match, future))

    def _reply(self, data: dict[str, Any]) -> None:
        attach = data.get("type") == "snapshot" or data.get("command") == "attach"
        if attach and self._snapshot is not None and not self._snapshot.done():
            if data.get("type") == "snapshot":
                self._snapshot.set_result(data)
            else:
                self._snapshot.set_exception(ChannelError(str(data.get("message"))))
            return
        future = self._replies.get(str(data.get("command_id")))
        if future is not None and not future.done():
            future.set_result(data)
