"""KernelSocket: one client of a kernel over jupyter_server's `/api/kernels/<id>/channels`.

Offers the `v1.kernel.websocket.jupyter.org` subprotocol, as JupyterLab does: the server then
forwards the kernel's ZMQ frames as they are (one binary frame: channel, header, parent header,
metadata, content, buffers) instead of parsing, date-converting and re-encoding every message
for every socket. A server that does not select it (e.g. one proxying a kernel gateway) gets the
plain JSON protocol. Either way `recv` returns the same dict: `header`, `parent_header`,
`metadata`, `content`, `channel`, `buffers`, `msg_id`, `msg_type`. The token travels in the
Authorization header, never in the URL (URLs get logged). Shard's per-agent commands ride on a
comm with target `shard` (see docs/PROTOCOL.md §4). A burst of events the kernel coalesced into
one `event_batch` comes out of `recv` as one message per event, so `shard_event` sees them all.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import deque
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from shard_core.protocol.events import EVENT_BATCH_TYPE
from shard_core.protocol.link import COMM_TARGET, EVENTS_COMM_ID

try:  # jupyter_client's own fast path (a third of a client's CPU on a busy stream); a
    # dependency of shard, so the fallback serves only an install that dropped it
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads

PROTOCOL_VERSION = "5.3"
V1_SUBPROTOCOL = "v1.kernel.websocket.jupyter.org"


async def close_websocket(
    conn: WebSocketClientConnection, within: float = 1.0, *, stream: Any = None
) -> None:
    """Close with the handshake and wait for the TCP socket to go; if the server has not answered
    within `within` seconds, or the wait is cancelled, drop it: tornado's `close()` alone leaves
    the socket to a handshake that a loop stopped or closed next never finishes. `stream`: the
    connection's IOStream as kept at open, for a connection `close()` was already called on
    (tornado then forgets its protocol, and with it the stream)."""
    stream = stream if stream is not None else getattr(conn.protocol, "stream", None)
    try:
        conn.close()
        deadline = time.monotonic() + within
        # tornado owns the stream's close callback, so poll rather than hook it
        while stream is not None and not stream.closed() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    finally:
        if stream is not None and not stream.closed():
            stream.close()


class KernelSocket:
    def __init__(self, conn: WebSocketClientConnection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self.subprotocol: str | None = conn.selected_subprotocol
        self._stream: Any = getattr(getattr(conn, "protocol", None), "stream", None)
        """kept for `aclose`: after `close()`, tornado no longer says which stream it was"""
        """`V1_SUBPROTOCOL` when the server selected it, else None (plain JSON)."""
        self._unpacked: deque[dict[str, Any]] = deque()
        self.frames = 0
        """WebSocket messages received so far (an `event_batch` is one)."""
        self.batches = 0
        """`event_batch` messages among them."""

    @classmethod
    async def open(
        cls,
        base_url: str,
        kernel_id: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        session_id: str | None = None,
        within: float = 20.0,
        subprotocol: bool = True,
    ) -> KernelSocket:
        """Connect; `base_url` is the server's http(s) URL, e.g. http://127.0.0.1:8888/.

        `subprotocol=False` asks for the plain JSON protocol only."""
        session_id = session_id or uuid.uuid4().hex
        parts = urlsplit(base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = parts.path.rstrip("/") + f"/api/kernels/{kernel_id}/channels"
        url = f"{scheme}://{parts.netloc}{path}?session_id={session_id}"
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"token {token}"
        request = HTTPRequest(url, headers=all_headers, connect_timeout=within)
        conn = await asyncio.wait_for(
            websocket_connect(
                request,
                max_message_size=256 * 1024 * 1024,
                subprotocols=[V1_SUBPROTOCOL] if subprotocol else None,
            ),
            within,
        )
        if conn.protocol is not None:  # many small frames: don't let Nagle hold them back
            conn.protocol.set_nodelay(True)
        return cls(conn, session_id)

    def send(
        self,
        channel: str,
        msg_type: str,
        content: dict[str, Any],
        *,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        msg_id = uuid.uuid4().hex
        header = {
            "msg_id": msg_id,
            "msg_type": msg_type,
            "username": "shard",
            "session": self.session_id,
            "date": datetime.now(UTC).isoformat(),
            "version": PROTOCOL_VERSION,
        }
        if self.subprotocol == V1_SUBPROTOCOL:
            parts = [header, {}, metadata or {}, content]
            frame = encode_v1(channel, [json.dumps(p).encode() for p in parts])
            self.conn.write_message(frame, binary=True)
            return msg_id
        message = {
            "header": header,
            "parent_header": {},
            "metadata": metadata or {},
            "content": content,
            "channel": channel,
            "buffers": [],
        }
        self.conn.write_message(json.dumps(message))
        return msg_id

    async def recv(self, within: float | None = None) -> dict[str, Any] | None:
        """The next message; None when the socket is closed. TimeoutError after `within` s.

        An `event_batch` is returned as one events-comm message per event, in order."""
        if self._unpacked:
            return self._unpacked.popleft()
        raw = await asyncio.wait_for(self.conn.read_message(), within)
        if raw is None:
            return None
        self.frames += 1
        if isinstance(raw, bytes):
            if self.subprotocol != V1_SUBPROTOCOL:
                raise ValueError("a binary frame on the JSON protocol (buffers are unsupported)")
            message = decode_v1(raw)
        else:
            message = _loads(raw)
        events = _batched(message)
        if events is None:
            return message
        self.batches += 1
        self._unpacked.extend(_one_event(message, event) for event in events)
        return self._unpacked.popleft() if self._unpacked else await self.recv(within)

    def close(self) -> None:
        self.conn.close()

    async def aclose(self, within: float = 1.0) -> None:
        await close_websocket(self.conn, within, stream=self._stream)

    # ------------------------------------------------------------ Shard over Jupyter

    def execute(self, code: str) -> str:
        """A prompt (or a `/command`): execute_request on the shell channel."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        return self.send("shell", "execute_request", content)

    def open_comm(self, data: dict[str, Any], comm_id: str | None = None) -> str:
        """Attach to the agent: a comm on target `shard` whose data is the attach command."""
        comm_id = comm_id or f"comm-{uuid.uuid4().hex[:12]}"
        self.send(
            "shell", "comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": data}
        )
        return comm_id

    def comm_send(self, comm_id: str, data: dict[str, Any]) -> str:
        return self.send("shell", "comm_msg", {"comm_id": comm_id, "data": data})

    def comm_close(self, comm_id: str) -> str:
        return self.send("shell", "comm_close", {"comm_id": comm_id, "data": {}})

    async def detach(self, comm_id: str, within: float = 2.0) -> bool:
        """Close the comm and wait until the kernel has handled it: the kernel answers shell
        requests in order, so the reply to a `kernel_info_request` sent after the comm_close
        means the client is off the agent's list. False when no reply came in time (the
        messages read meanwhile are dropped: the caller is leaving)."""
        self.comm_close(comm_id)
        asked = self.send("shell", "kernel_info_request", {})
        deadline = time.monotonic() + within
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await self.recv(left)
            except TimeoutError:
                return False
            if message is None:
                return False
            if msg_type(message) == "kernel_info_reply" and parent_id(message) == asked:
                return True
        return False


def encode_v1(channel: str, parts: list[bytes]) -> bytes:
    """One v1 frame: n, n offsets (8-byte little-endian), then the channel and each part."""
    chunks = [channel.encode(), *parts]
    offsets = [8 * (len(chunks) + 2)]
    for chunk in chunks:
        offsets.append(offsets[-1] + len(chunk))
    head = b"".join(n.to_bytes(8, "little") for n in (len(offsets), *offsets))
    return head + b"".join(chunks)


def decode_v1(frame: bytes) -> dict[str, Any]:
    """A v1 frame as the message dict the JSON protocol would have carried."""
    count = int.from_bytes(frame[:8], "little")
    offsets = [int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(count)]
    chunks = [frame[offsets[i] : offsets[i + 1]] for i in range(count - 1)]
    if len(chunks) < 5:
        raise ValueError(f"a v1 frame with {len(chunks)} parts (at least 5 expected)")
    header, parent, metadata, content = (_loads(c) for c in chunks[1:5])
    return {
        "header": header,
        "parent_header": parent,
        "metadata": metadata,
        "content": content,
        "buffers": chunks[5:],
        "channel": chunks[0].decode(),
        "msg_id": header.get("msg_id"),
        "msg_type": header.get("msg_type"),
    }


def msg_type(message: dict[str, Any]) -> str:
    return str((message.get("header") or {}).get("msg_type") or message.get("msg_type") or "")


def parent_id(message: dict[str, Any]) -> str | None:
    """The msg_id of the request a message answers or belongs to, if any."""
    value = (message.get("parent_header") or {}).get("msg_id")
    return str(value) if value else None


def shard_event(message: dict[str, Any]) -> dict[str, Any] | None:
    """The Shard event a message carries, if it is one (a comm_msg on the events comm).

    A message from `KernelSocket.recv` carries one event at most; for raw Jupyter messages,
    which may carry an `event_batch`, use `shard_events`."""
    content = message.get("content") or {}
    if msg_type(message) == "comm_msg" and content.get("comm_id") == EVENTS_COMM_ID:
        return content.get("data")
    return None


def shard_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Every Shard event a message carries: none, one, or the events of an `event_batch`."""
    batched = _batched(message)
    if batched is not None:
        return batched
    event = shard_event(message)
    return [event] if event is not None else []


def _batched(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    data = shard_event(message)
    if isinstance(data, dict) and data.get("type") == EVENT_BATCH_TYPE:
        return [e for e in data.get("events") or [] if isinstance(e, dict)]
    return None


def _one_event(message: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    return {**message, "content": {**message["content"], "data": event}}


def comm_reply(message: dict[str, Any], comm_id: str) -> dict[str, Any] | None:
    """A reply (`snapshot`, `reply`) on this client's own comm, if the message is one."""
    content = message.get("content") or {}
    if msg_type(message) == "comm_msg" and content.get("comm_id") == comm_id:
        return content.get("data")
    return None
