"""What Shard changes in jupyter_server's kernel WebSocket connection: speed, and refusing frames.

Every kernel's WebSockets refuse a malformed binary frame before it is decoded (`FrameCheck`)
and send without Nagle delay. Agent kernels' connections (local kernels, not a kernel
gateway's) also share one IOPub subscription (fanout.py), skip the IOPub rate limiter, and
relay kernel messages as prebuilt WebSocket frames (an IOPub message's frame built once for
every v1 client, and once for every JSON-protocol client). The messages and their order are
unchanged; an agent's traceback replacement works (see `AgentConnection._on_error`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import zmq
from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.iostream import StreamClosedError

from shard_kernel.gateway.client import COMM_TARGET
from shard_kernel.gateway.fanout import IopubView, SharedIopub, websocket_frame
from shard_kernel.gateway.frames import FrameError, check_frame
from shard_kernel.kernelspec import KERNEL_NAME

V1_SUBPROTOCOL = "v1.kernel.websocket.jupyter.org"


class FrameCheck:
    """Kernel WebSocket connections that check each client frame before jupyter_server decodes
    it (frames.py): a malformed one closes the socket with the reason and reaches no kernel.

    Mixed into every kernel's connection class, a kernel gateway's proxy too (which would pass
    the frame on to a decoder as trusting as this server's)."""

    websocket_handler: Any
    kernel_id: str
    log: Any
    _refused = False

    def handle_incoming_message(self, incoming_msg: Any) -> None:
        if self._refused:
            return  # closing: a frame that was already on its way
        try:
            check_frame(incoming_msg, self._subprotocol())
        except FrameError as exc:
            self._refused = True
            self.log.warning(
                "shard: closed a kernel WebSocket (kernel %s): %s", self.kernel_id, exc
            )
            self.websocket_handler.close(exc.code, exc.reason)
            return
        super().handle_incoming_message(incoming_msg)  # type: ignore[misc]

    def _subprotocol(self) -> str | None:
        connection = self.websocket_handler.ws_connection
        return None if connection is None else connection.selected_subprotocol


class NoDelay:
    """Kernel WebSocket connections that send each message at once (TCP_NODELAY).

    A kernel answers with several small messages back to back (status, execute_input, reply,
    events); with Nagle on, the second one waits for the client's delayed ACK — a 40 ms stall
    measured on loopback in half of the round trips.
    """

    websocket_handler: Any

    def connect(self) -> Any:
        self.websocket_handler.set_nodelay(True)
        return super().connect()  # type: ignore[misc]


class AgentConnection:
    """An agent kernel's WebSocket connection; other kernels' connections are jupyter_server's.

    - IOPub comes from the subscription the kernel's WebSockets share (see fanout.py).
    - No IOPub rate limiter. It is meant for runaway cell output; an agent kernel sends no
      `stream` output (what the data limit counts), its events are already paced and batched
      by the kernel, `shard gateway` raised the message limit out of the way anyway
      (SHARD_IOPUB_MSG_RATE), and under `jupyter lab`'s default (1000 messages/s) the limiter
      would drop events of a busy agent. Its traitlets bookkeeping was a fifth of the server's
      CPU per message and client. A client that misses a message still finds the gap by `seq`
      and fills it with `sync`.
    - Without compression, an IOPub message goes out as the WebSocket frame the shared
      subscription built once for every client (`IopubView.ws_frame`), written straight to the
      client's stream: jupyter_server re-encodes it per client and tornado's `write_message`
      wraps each write in a task, about half of the relay's CPU per message and client. A
      JSON-protocol client's frame is jupyter_server's JSON text of the message, likewise made
      once for all of them (`json_frame`); on v1 a reply on shell, control or stdin is framed
      the same way (once: it has one client). Not when the server replaces tracebacks
      (`allow_tracebacks=False`): that path rewrites `error` messages, so it stays
      jupyter_server's — with its replacement fixed (`_on_error`: jupyter_server 2.21 reads the
      replacement text from the wrong object, so the `error` output was lost instead of
      replaced).
    - A WebSocket that goes away closes the `shard` comms its client opened, as the client
      would have: the kernel detaches that client at once (counts, responders, the headless
      policy) instead of counting a closed browser tab as attached until its heartbeat expires.
      A client that comes back opens a new comm and attaches again.
    - A request from the client goes to the kernel at once: jupyter_server queues it on the
      channel's stream, which sends it on the loop's next turn.
    """

    kernel_manager: Any
    multi_kernel_manager: Any
    websocket_handler: Any
    kernel_id: str
    session: Any
    subprotocol: str | None
    channels: dict[str, Any]
    limit_rate: bool
    _requests: tuple[Any, ...] = ()
    _frames = False
    _json_frames = False
    _comms: set[str] | None = None  # the `shard` comms this client opened and has not closed

    def create_stream(self) -> None:
        if not self._is_agent():
            super().create_stream()  # type: ignore[misc]
            return
        identity = self.session.bsession
        for channel in ("shell", "control", "stdin"):
            stream = getattr(self.kernel_manager, f"connect_{channel}")(identity=identity)
            stream.channel = channel
            self.channels[channel] = stream
        self.channels["iopub"] = SharedIopub.view(self.kernel_id, self.kernel_manager)
        self._adopt()

    def connect(self) -> Any:
        connected = super().connect()  # type: ignore[misc]
        if self._is_agent() and not self._requests and "shell" in self.channels:
            self._adopt()  # restored from jupyter_server's buffer: an earlier connection's streams
        return connected

    def _is_agent(self) -> bool:
        return getattr(self.kernel_manager, "kernel_name", None) == KERNEL_NAME

    def _adopt(self) -> None:
        self.limit_rate = False
        self._requests = (self.channels["shell"], self.channels["control"], self.channels["stdin"])
        plain = self.websocket_handler.get_compression_options() is None and bool(
            self.multi_kernel_manager.allow_tracebacks
        )
        self._frames = plain and self.subprotocol == V1_SUBPROTOCOL
        self._json_frames = plain and self.subprotocol != V1_SUBPROTOCOL

    def handle_incoming_message(self, incoming_msg: Any) -> None:
        if self._is_agent() and self.channels:
            # a malformed message is jupyter_server's to refuse
            with contextlib.suppress(ValueError, LookupError, TypeError, AttributeError):
                self._track_comms(incoming_msg)
        super().handle_incoming_message(incoming_msg)  # type: ignore[misc]
        for stream in self._requests:  # send now, not on the loop's next turn
            if not stream.closed() and stream.sending():
                stream.flush(zmq.POLLOUT)

    def _track_comms(self, ws_msg: Any) -> None:
        if b"comm_" not in ws_msg if isinstance(ws_msg, bytes) else "comm_" not in ws_msg:
            return  # not a comm message: the header would say comm_open / comm_close
        if self.subprotocol == V1_SUBPROTOCOL:
            channel, parts = deserialize_msg_from_ws_v1(ws_msg)
            header, content = json.loads(parts[0]), json.loads(parts[3])
        else:
            msg = json.loads(ws_msg)
            channel, header, content = msg.get("channel"), msg["header"], msg["content"]
        kind = header.get("msg_type")
        if channel not in (None, "shell") or kind not in ("comm_open", "comm_close"):
            return
        comm_id = str(content.get("comm_id"))
        comms = self._comms = self._comms or set()  # per connection (the class default is None)
        if kind == "comm_close":
            comms.discard(comm_id)
        elif content.get("target_name") == COMM_TARGET:
            comms.add(comm_id)

    def disconnect(self) -> None:
        comms, self._comms = self._comms, None
        shell = self.channels.get("shell") if self.channels else None
        if comms and shell is not None and not shell.closed():
            for comm_id in sorted(comms):
                content = {"comm_id": comm_id, "data": {"reason": "the WebSocket closed"}}
                self.session.send(shell, "comm_close", content)
            shell.flush()
        super().disconnect()  # type: ignore[misc]
        if self._is_agent():
            self._unbuffer_if_stopping()
            self._let_go_of_streams()

    def _let_go_of_streams(self) -> None:
        """Forget the kernel's streams once disconnected. jupyter_server hands a last client's
        channels to the kernel's message buffer (which closes them when it ends) and leaves them
        here too, and its kernel_info timeout (`prepare`'s `give_up`, never cancelled) keeps
        this object for `kernel_info_timeout` (60 s) after the client came: the streams, the view
        of the shared IOPub and through it that subscription and its ZMQ socket stayed that long
        after the kernel had stopped (20-36 of them during B7's cycles). A connection restored
        from the buffer takes the buffer's channels, not these; jupyter_server empties them the
        same way when it closes them itself."""
        self.channels = {}
        self._requests = ()

    def _unbuffer_if_stopping(self) -> None:
        """jupyter_server drops a kernel's message buffer when its shutdown begins and then
        awaits the shutdown; a last client that leaves in between starts a new buffer that
        nothing ends: its channels, the shared IOPub and every message stay open for the life
        of the server (~3 descriptors per agent stopped so). When the kernel is on its way out,
        end that buffer: now, and once more on the next loop turn, by when a shutdown asked for
        in this one has begun (`shutting_down` is set by its first step). An agent's clients
        catch up by `seq` when they attach again, so nothing is lost to them."""
        kernels, kernel_id = self.multi_kernel_manager, self.kernel_id

        def unbuffer() -> None:
            if kernel_id in kernels and getattr(
                kernels.get_kernel(kernel_id), "shutting_down", False
            ):
                kernels.stop_buffering(kernel_id)

        unbuffer()
        asyncio.get_running_loop().call_soon(unbuffer)

    def _on_error(self, channel: str, msg: dict[str, Any], msg_list: list[Any]) -> None:
        """jupyter_server's traceback replacement, reading the text where it is configured."""
        if not self._is_agent():
            super()._on_error(channel, msg, msg_list)  # type: ignore[misc]
            return
        kernels = self.multi_kernel_manager
        if kernels.allow_tracebacks or channel != "iopub":
            return
        if msg["header"] is None:
            msg["header"] = self.session.unpack(msg_list[0])
        if msg["header"]["msg_type"] != "error":
            return
        if msg["content"] is None:
            msg["content"] = self.session.unpack(msg_list[3])
        msg["content"].update(
            ename="ExecutionError",
            evalue="Execution error",
            traceback=[kernels.traceback_replacement_message],
        )
        if self.subprotocol == V1_SUBPROTOCOL:
            msg_list[3] = self.session.pack(msg["content"])

    def _iopub_json(self, msg_list: list[Any]) -> str | bytes:
        """jupyter_server's JSON-protocol encoding of an IOPub message (what its
        `_on_zmq_reply` writes): the same for every client of the kernel, whose sessions share
        its key."""
        return self._reserialize_reply(msg_list, channel="iopub")  # type: ignore[attr-defined]

    def handle_outgoing_message(self, stream: Any, outgoing_msg: list[Any]) -> None:
        frame = None
        if self._frames and type(stream) is IopubView:
            frame = stream.ws_frame(outgoing_msg)
        elif self._frames and stream in self._requests:  # a reply to this client
            frame = websocket_frame(outgoing_msg, stream.channel)
        elif self._json_frames and type(stream) is IopubView:
            frame = stream.json_frame(outgoing_msg, self._iopub_json)
        if frame is None:
            super().handle_outgoing_message(stream, outgoing_msg)  # type: ignore[misc]
            return
        ws = self.websocket_handler.ws_connection
        if ws is None or ws.is_closing():
            return  # closing: its on_close disconnects this connection
        with contextlib.suppress(StreamClosedError):  # closed since: the same
            ws.stream.write(frame)


def install_connection_class(settings: dict[str, Any]) -> bool:
    """Mix the above into the server's kernel WebSocket connection class (frame checks and no
    Nagle delay for every kernel); True when agent kernels' connections are `AgentConnection`s
    (local kernels, not a kernel gateway's)."""
    base = settings.get("kernel_websocket_connection_class")
    if base is None or issubclass(base, NoDelay):
        return False
    mixins: tuple[type, ...] = (FrameCheck, NoDelay)
    local = issubclass(base, ZMQChannelsWebsocketConnection)
    if local:
        mixins = (FrameCheck, NoDelay, AgentConnection)
    settings["kernel_websocket_connection_class"] = type(
        f"Shard{base.__name__}", (*mixins, base), {}
    )
    return local
