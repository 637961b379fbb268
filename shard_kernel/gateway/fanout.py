"""One IOPub subscription per agent kernel, shared by every WebSocket connected to it.

jupyter_server gives each WebSocket its own ZMQ SUB socket on the kernel's IOPub, so a message
sent to N clients is received, dispatched and framed N times by pyzmq's ZMQStream machinery —
about half of the server's CPU per message and client while it relays a streaming agent (the
profile in bench/README.md). Here each connection gets an `IopubView` instead: it behaves like
the ZMQStream the connection expects (`on_recv`, `on_recv_stream`, `stop_on_recv`, `closed`,
`close`, `flush`, `socket.closed`), and one `SharedIopub` per kernel (and port set) receives each
message once and hands it to every view in order. What the connection does with a message —
traceback replacement, the v1 or JSON framing, buffering while nobody is connected — is its own
(connection.py). A view without a callback keeps what arrives (up to ZMQ's default high-water mark,
1000 messages, like the SUB socket it replaces) and delivers it once a callback is set. The
shared subscription outlives its last view while the kernel runs, so a reconnecting client
never waits for (or loses messages to) a fresh ZMQ subscription. One view's failure never
keeps a message from the views after it.

`ws_frame` builds the WebSocket frame of a message in the v1 subprotocol once, for every view
(server frames are unmasked, so without compression every client gets the same bytes);
`json_frame` does the same for JSON-protocol clients (jupyter_server's JSON text of the message,
decoded and re-encoded once instead of once per client).
"""

from __future__ import annotations

import logging
import struct
from collections import deque
from collections.abc import Callable
from typing import Any

from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1
from tornado.ioloop import IOLoop

QUEUE_LIMIT = 1000
"""Messages a view holds while it has no callback (ZMQ's default receive high-water mark)."""
KEEP_CHECK = 5.0
"""Seconds between checks whether a subscription without views can be closed."""
DELIMITER = b"<IDS|MSG>"
"""Separates a Jupyter message's routing frames from its signature and parts."""
_FINAL_BINARY = 0x82
_FINAL_TEXT = 0x81
log = logging.getLogger(__name__)


class SharedIopub:
    _by_key: dict[tuple[str, tuple[int, ...]], SharedIopub] = {}

    def __init__(self, key: tuple[str, tuple[int, ...]], kernel_manager: Any) -> None:
        self.key = key
        self.km = kernel_manager
        self.stream: Any = kernel_manager.connect_iopub()
        self.stream.on_recv(self._dispatch)
        self.views: list[IopubView] = []
        self._check: object | None = None
        self._framed: list[bytes] | None = None
        self._frame: bytes | None = None
        self._jsoned: list[bytes] | None = None
        self._json: bytes | None = None

    @classmethod
    def view(cls, kernel_id: str, kernel_manager: Any) -> IopubView:
        key = (kernel_id, tuple(kernel_manager.ports))
        shared = cls._by_key.get(key)
        if shared is None or shared.stream.closed():
            shared = cls._by_key[key] = cls(key, kernel_manager)
        view = IopubView(shared)
        shared.views.append(view)
        return view

    def leave(self, view: IopubView) -> None:
        if view in self.views:
            self.views.remove(view)
        if not self.views and self._check is None:
            self._check = IOLoop.current().call_later(KEEP_CHECK, self._close_if_unused)

    def _close_if_unused(self) -> None:
        """With no view left, the subscription stays while the kernel lives on these ports: a
        client that reconnects (often while the agent is busy, when jupyter_server does not
        wait for IOPub to connect) then gets a subscription that is already receiving."""
        self._check = None
        if self.views:
            return
        alive = getattr(self.km, "has_kernel", False) and tuple(self.km.ports) == self.key[1]
        if alive and not self.stream.closed():
            self._check = IOLoop.current().call_later(KEEP_CHECK, self._close_if_unused)
            return
        if self._by_key.get(self.key) is self:
            del self._by_key[self.key]
        if not self.stream.closed():
            self.stream.on_recv(None)
            self.stream.close()

    def _dispatch(self, msg_list: list[bytes]) -> None:
        try:
            for view in list(self.views):
                try:
                    view.deliver(msg_list)
                except Exception:  # e.g. a WebSocket that closed under its connection
                    log.warning("shard: an IOPub message could not reach one client", exc_info=True)
        finally:
            # The frame served the views that took the message now; one that queued it builds
            # its own later. Kept, it would hold the last message (a snapshot can be ~100 KB)
            # for as long as anything holds this subscription.
            self._framed = self._frame = self._jsoned = self._json = None

    def ws_frame(self, msg_list: list[Any]) -> bytes | None:
        """The message as one v1 WebSocket frame, built once per message; None if it is not a
        plain Jupyter message of bytes (the caller then encodes it the usual way)."""
        if msg_list is not self._framed:
            self._framed, self._frame = msg_list, websocket_frame(msg_list)
        return self._frame

    def json_frame(
        self, msg_list: list[Any], encode: Callable[[list[Any]], str | bytes]
    ) -> bytes | None:
        """The message as the WebSocket frame a JSON-protocol client gets (`encode` is the
        connection's: jupyter_server's JSON or binary re-serialization), built once per
        message for every such client; None if `encode` fails (the caller's usual path then
        reports it)."""
        if msg_list is not self._jsoned:
            try:
                payload = encode(msg_list)
            except Exception:
                self._jsoned, self._json = msg_list, None
                return None
            if isinstance(payload, str):
                frame = frame_of(payload.encode("utf-8"), _FINAL_TEXT)
            else:
                frame = frame_of(payload, _FINAL_BINARY)
            self._jsoned, self._json = msg_list, frame
        return self._json


def frame_of(payload: bytes, opcode: int) -> bytes:
    """A final, unmasked, uncompressed WebSocket frame (server to client) of `payload`."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", opcode, size)
    elif size <= 0xFFFF:
        head = struct.pack("!BBH", opcode, 126, size)
    else:
        head = struct.pack("!BBQ", opcode, 127, size)
    return head + payload


def websocket_frame(msg_list: list[Any], channel: str = "iopub") -> bytes | None:
    """A final, unmasked, uncompressed binary frame carrying a kernel message in the
    `v1.kernel.websocket.jupyter.org` encoding (what jupyter_server and tornado would write);
    None if `msg_list` is not a Jupyter message of bytes."""
    if not all(isinstance(part, bytes) for part in msg_list) or DELIMITER not in msg_list:
        return None
    parts = msg_list[msg_list.index(DELIMITER) + 2 :]  # header, parent, metadata, content, ...
    return frame_of(serialize_msg_to_ws_v1(parts, channel), _FINAL_BINARY)


class _Socket:
    def __init__(self, view: IopubView) -> None:
        self._view = view

    @property
    def closed(self) -> bool:
        return self._view.closed()


class IopubView:
    """What one connection sees of the shared subscription; quacks like its ZMQStream."""

    channel = "iopub"

    def __init__(self, shared: SharedIopub) -> None:
        self._shared = shared
        self._callback: Callable[[list[bytes]], None] | None = None
        self._queue: deque[list[bytes]] = deque(maxlen=QUEUE_LIMIT)
        self._closed = False
        self.socket = _Socket(self)

    def on_recv(self, callback: Callable[[list[bytes]], Any] | None, copy: bool = True) -> None:
        self._callback = callback
        if callback is not None and self._queue:
            IOLoop.current().add_callback(self._drain)

    def on_recv_stream(
        self, callback: Callable[[Any, list[bytes]], Any] | None, copy: bool = True
    ) -> None:
        self.on_recv(None if callback is None else lambda msg: callback(self, msg))

    def stop_on_recv(self) -> None:
        self._callback = None

    def ws_frame(self, msg_list: list[Any]) -> bytes | None:
        return self._shared.ws_frame(msg_list)

    def json_frame(
        self, msg_list: list[Any], encode: Callable[[list[Any]], str | bytes]
    ) -> bytes | None:
        return self._shared.json_frame(msg_list, encode)

    def deliver(self, msg_list: list[bytes]) -> None:
        if self._closed:
            return
        if self._callback is None or self._queue:
            self._queue.append(msg_list)  # keeps order behind what is still queued
            if self._callback is not None:
                IOLoop.current().add_callback(self._drain)
            return
        self._callback(msg_list)

    def _drain(self) -> None:
        while self._queue and self._callback is not None and not self._closed:
            self._callback(self._queue.popleft())

    def flush(self, *args: Any, **kwargs: Any) -> int:
        """Deliver what the shared socket holds now (to every view, in order)."""
        if self._shared.stream.closed():
            return 0
        count = int(self._shared.stream.flush(*args, **kwargs) or 0)
        self._drain()
        return count

    def closed(self) -> bool:
        return self._closed

    def close(self, linger: int | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        self._callback = None
        self._queue.clear()
        self._shared.leave(self)
