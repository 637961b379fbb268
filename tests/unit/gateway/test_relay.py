"""The relay's shortcuts without processes: prebuilt WebSocket frames, one framing per message for
every client, one failing client, and agent kernels' activity noted as jupyter_server notes it."""

from __future__ import annotations

import datetime
import gc
import json
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from jupyter_server.services.kernels.kernelmanager import (
    AsyncMappingKernelManager,
    MappingKernelManager,
)
from jupyter_server.services.kernels.websocket import KernelWebsocketHandler
from tornado.ioloop import IOLoop
from tornado.websocket import WebSocketProtocol13, _WebSocketParams
from traitlets.config import LoggingConfigurable

from shard_kernel.gateway.activity import watch_agents_on_shared_iopub
from shard_kernel.gateway.client import V1_SUBPROTOCOL, decode_v1
from shard_kernel.gateway.connection import AgentConnection, install_connection_class
from shard_kernel.gateway.fanout import DELIMITER, SharedIopub, websocket_frame
from shard_kernel.kernelspec import KERNEL_NAME

SESSION = Session(key=b"relay-test-key")


def kernel_message(
    msg_type: str, content: dict[str, Any], parent: dict[str, Any] | None = None
) -> list[bytes]:
    """What a kernel puts on IOPub: topic, delimiter, signature, header, parent, metadata, …"""
    msg = SESSION.msg(msg_type, content, parent=parent or {})
    return [bytes(p) for p in SESSION.serialize(msg, ident=f"kernel.x.{msg_type}".encode())]


class Written:
    """The stream tornado writes a server's WebSocket frames to."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> Any:
        self.data += data
        return None


async def tornados_frame(payload: bytes) -> bytes:
    protocol = WebSocketProtocol13(None, mask_outgoing=False, params=_WebSocketParams())  # type: ignore[arg-type]
    written = Written()
    protocol.stream = written  # type: ignore[assignment]
    protocol._write_frame(True, 0x2, payload)  # what write_message(binary=True) writes
    return written.data


@pytest.mark.parametrize("size", [10, 70_000])  # a 2-byte and an 8-byte payload length
@pytest.mark.parametrize("channel", ["iopub", "shell"])
async def test_frames_are_what_jupyter_server_and_tornado_write(size: int, channel: str) -> None:
    msg_list = kernel_message("comm_msg", {"comm_id": "c", "data": {"text": "é" * size}})
    msg_list.append(b"a buffer")
    parts = msg_list[msg_list.index(DELIMITER) + 2 :]
    expected = await tornados_frame(serialize_msg_to_ws_v1(parts, channel))
    assert websocket_frame(msg_list, channel) == expected
    message = decode_v1(expected[4 if size == 10 else 10 :])
    assert (message["channel"], message["content"]["data"]["text"]) == (channel, "é" * size)
    assert message["buffers"] == [b"a buffer"]


async def test_a_short_frame_has_a_one_byte_length() -> None:
    msg_list = [b"topic", DELIMITER, b"", b"{}", b"{}", b"{}", b"{}"]
    payload = serialize_msg_to_ws_v1(msg_list[3:], "iopub")  # after the signature
    assert len(payload) < 126
    assert (
        websocket_frame(msg_list)
        == await tornados_frame(payload)
        == b"\x82" + bytes([len(payload)]) + payload
    )


def test_what_is_no_jupyter_message_is_left_to_jupyter_server() -> None:
    assert websocket_frame([b"no delimiter"]) is None
    assert websocket_frame([b"topic", DELIMITER, memoryview(b"sig")]) is None


class FakeKernel:
    """A kernel manager as the shared subscription and the activity watcher use it."""

    def __init__(self, name: str) -> None:
        self.kernel_name = name
        self.session = SESSION
        self.ports = [1, 2, 3, 4, 5]
        self.has_kernel = True
        self.execution_state = "starting"
        self.last_activity: Any = None
        self.reason = "?"
        self.receive: Callable[[list[bytes]], Any] | None = None

    def connect_iopub(self) -> Any:
        kernel = self

        class Stream:
            def on_recv(self, callback: Callable[[list[bytes]], Any], copy: bool = True) -> None:
                kernel.receive = callback

            def closed(self) -> bool:
                return False

        return Stream()


@pytest.fixture
def shared() -> Iterator[SharedIopub]:
    kernel = FakeKernel(KERNEL_NAME)
    view = SharedIopub.view("relay-test", kernel)
    yield view._shared
    SharedIopub._by_key.pop(view._shared.key, None)


def test_a_message_is_framed_once_for_every_client(shared: SharedIopub) -> None:
    views = [SharedIopub.view("relay-test", shared.km) for _ in range(3)]
    msg_list = kernel_message("status", {"execution_state": "busy"})
    frames = [view.ws_frame(msg_list) for view in views]
    assert frames[0] is not None
    assert all(frame is frames[0] for frame in frames)  # the same bytes object
    again = kernel_message("status", {"execution_state": "idle"})
    assert views[0].ws_frame(again) == websocket_frame(again) != frames[0]


def test_a_message_is_framed_once_while_dispatched_and_not_kept_after(
    shared: SharedIopub,
) -> None:
    frames: list[bytes | None] = []
    views = [SharedIopub.view("relay-test", shared.km) for _ in range(3)]
    for view in views:  # as AgentConnection does with each message it is handed
        view.on_recv(lambda msg_list, view=view: frames.append(view.ws_frame(msg_list)))
    msg_list = kernel_message("comm_msg", {"data": {"events": ["x" * 200_000]}})
    assert shared.km.receive is not None
    shared.km.receive(msg_list)
    assert len(frames) == 3
    assert frames[0] is not None
    assert all(frame is frames[0] for frame in frames)
    # a large message (an attach snapshot) is not held by the subscription once delivered: it
    # outlives the connections that read it
    assert not any(r is shared for r in gc.get_referrers(msg_list))
    assert not any(r is shared for r in gc.get_referrers(frames[0]))


def test_one_failing_client_does_not_keep_a_message_from_the_others(shared: SharedIopub) -> None:
    got: list[tuple[str, list[bytes]]] = []

    def broken(msg_list: list[bytes]) -> None:
        raise RuntimeError("its WebSocket closed under it")

    first, second, third = (SharedIopub.view("relay-test", shared.km) for _ in range(3))
    first.on_recv(lambda msg_list: got.append(("first", msg_list)))
    second.on_recv(broken)
    third.on_recv(lambda msg_list: got.append(("third", msg_list)))
    msg_list = kernel_message("status", {"execution_state": "busy"})
    assert shared.km.receive is not None
    shared.km.receive(msg_list)
    assert got == [("first", msg_list), ("third", msg_list)]


def request(msg_type: str) -> dict[str, Any]:
    return SESSION.msg(msg_type, {})["header"]


ACTIVITY = [
    ("status", {"execution_state": "starting"}, None),
    ("status", {"execution_state": "busy"}, request("kernel_info_request")),
    ("status", {"execution_state": "idle"}, request("kernel_info_request")),
    ("status", {"execution_state": "busy"}, request("execute_request")),
    ("execute_input", {"code": "hi", "execution_count": 1}, request("execute_request")),
    ("comm_msg", {"comm_id": "shard-events", "data": {}}, request("execute_request")),
    ("stream", {"name": "stdout", "text": "x"}, request("execute_request")),
    ("status", {"execution_state": "idle"}, request("execute_request")),
    ("stream", {"name": "stdout", "text": "late"}, request("execute_request")),
    ("comm_msg", {"comm_id": "shard-events", "data": {}}, None),
    ("status", {"execution_state": "busy"}, request("comm_info_request")),
    ("status", {"execution_state": "idle"}, request("comm_info_request")),
]


def test_agent_activity_is_noted_as_jupyter_server_notes_it(tmp_path: Path) -> None:
    kernels = AsyncMappingKernelManager(root_dir=str(tmp_path))
    upstream, agent = FakeKernel("python3"), FakeKernel(KERNEL_NAME)
    kernels._kernels.update({"upstream": upstream, "agent": agent})
    MappingKernelManager.start_watching_activity(kernels, "upstream")
    watch_agents_on_shared_iopub(kernels)
    kernels.start_watching_activity("agent")
    try:
        assert (agent.reason, type(agent.last_activity)) == ("", datetime.datetime)
        assert upstream.receive is not None
        assert agent.receive is not None
        never = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
        for msg_type, content, parent in ACTIVITY:
            msg_list = kernel_message(msg_type, content, parent)
            noted = []
            for kernel in (upstream, agent):
                kernel.last_activity = kernels.last_kernel_activity = never
                kernel.receive(msg_list)
                noted.append((kernel.execution_state, kernel.last_activity != never))
            assert noted[1] == noted[0], (msg_type, content, parent)
        kernels.stop_watching_activity("agent")  # closes the agent's view of the subscription
        assert agent._activity_stream is None  # type: ignore[attr-defined]
    finally:
        SharedIopub._by_key.pop(("agent", tuple(agent.ports)), None)


@pytest.mark.parametrize("subprotocol", [V1_SUBPROTOCOL, None])
def test_the_shard_comms_a_client_opens_are_tracked_until_it_closes_them(
    subprotocol: str | None,
) -> None:
    session = Session(key=b"k")
    connection = AgentConnection()
    connection.subprotocol = subprotocol

    def incoming(msg_type: str, content: dict[str, Any], channel: str = "shell") -> Any:
        msg = session.msg(msg_type, content)
        if subprotocol == V1_SUBPROTOCOL:
            parts = [session.pack(msg[k]) for k in ("header", "parent_header", "metadata")]
            return serialize_msg_to_ws_v1([*parts, session.pack(content)], channel)
        return json.dumps({**msg, "channel": channel}, default=str)

    connection._track_comms(incoming("comm_open", {"comm_id": "a", "target_name": "shard"}))
    connection._track_comms(
        incoming("comm_open", {"comm_id": "w", "target_name": "jupyter.widget"})
    )
    connection._track_comms(incoming("comm_open", {"comm_id": "b", "target_name": "shard"}))
    connection._track_comms(incoming("execute_request", {"code": "comm_open"}))
    assert connection._comms == {"a", "b"}
    connection._track_comms(incoming("comm_close", {"comm_id": "a"}))
    connection._track_comms(incoming("comm_close", {"comm_id": "b"}, channel="control"))
    assert connection._comms == {"b"}


class SocketDouble:
    closed = False


class StreamDouble:
    """What jupyter_server's message buffer and the shared subscription use of a ZMQStream."""

    def __init__(self) -> None:
        self.socket = SocketDouble()
        self.callback: Any = None

    def on_recv(self, callback: Any, copy: bool = True) -> None:
        self.callback = callback

    def closed(self) -> bool:
        return self.socket.closed

    def close(self, linger: int | None = None) -> None:
        self.socket.closed = True


class AgentKernelDouble(LoggingConfigurable):
    """An agent kernel's manager: the parent of its WebSocket connections."""

    kernel_id = "agent"
    kernel_name = KERNEL_NAME
    ports = [1, 2, 3, 4, 5]
    has_kernel = True

    def connect_iopub(self) -> StreamDouble:
        return StreamDouble()

    def remove_restart_callback(self, callback: Any, event: str = "restart") -> None:
        pass


async def test_a_closed_agent_connection_keeps_no_stream_of_its_stopped_kernel(
    tmp_path: Path,
) -> None:
    """jupyter_server keeps a connection object for 60 s after its client came (`prepare` arms a
    kernel_info timeout it never cancels). The last client's channels went to the kernel's
    message buffer, which closes them when the kernel stops; the connection must not keep them
    (and through the view the shared IOPub subscription) after that."""
    kernels = AsyncMappingKernelManager(root_dir=str(tmp_path))
    kernel = AgentKernelDouble(parent=kernels)
    kernels._kernels["agent"] = kernel
    kernels._kernel_connections["agent"] = 1  # one client connected
    settings: dict[str, Any] = {"kernel_websocket_connection_class": ZMQChannelsWebsocketConnection}
    assert install_connection_class(settings)
    handler = KernelWebsocketHandler.__new__(KernelWebsocketHandler)  # only its identity is used
    handler.get_compression_options = lambda: None  # type: ignore[method-assign]  # the default
    connection = settings["kernel_websocket_connection_class"](
        parent=kernel, websocket_handler=handler
    )
    streams = {channel: StreamDouble() for channel in ("shell", "control", "stdin")}
    view = SharedIopub.view("agent", kernel)
    subscription = weakref.ref(view._shared)
    connection.channels = {**streams, "iopub": view}
    connection._adopt()
    ZMQChannelsWebsocketConnection._open_sockets.add(connection)
    try:
        connection.disconnect()  # the last client left: its channels go to the kernel's buffer
        assert kernels._kernel_buffers["agent"]["channels"]["iopub"] is view
        kernels.stop_buffering("agent")  # the kernel stops (jupyter_server's shutdown)
        kernel.has_kernel = False
        assert view.closed()
        assert all(stream.closed() for stream in streams.values())
        shared = subscription()
        assert shared is not None
        assert shared._check is not None
        IOLoop.current().remove_timeout(shared._check)
        shared._close_if_unused()  # what the KEEP_CHECK timer does: the kernel is gone
        del view, shared
        gc.collect()
        assert subscription() is None  # while the connection object lives on
        assert connection.channels == {}
        assert connection._requests == ()
    finally:
        SharedIopub._by_key.pop(("agent", tuple(kernel.ports)), None)


async def tornados_text_frame(payload: str) -> bytes:
    protocol = WebSocketProtocol13(None, mask_outgoing=False, params=_WebSocketParams())  # type: ignore[arg-type]
    written = Written()
    protocol.stream = written  # type: ignore[assignment]
    protocol._write_frame(True, 0x1, payload.encode("utf-8"))  # what write_message(str) writes
    return written.data


async def test_a_message_is_encoded_once_for_every_json_client(shared: SharedIopub) -> None:
    encoded: list[list[bytes]] = []

    def encode(msg_list: list[bytes]) -> str:  # a JSON client's connection's re-serialization
        encoded.append(msg_list)
        _, parts = SESSION.feed_identities(msg_list)
        msg = SESSION.deserialize(parts)
        msg["channel"] = "iopub"
        return json.dumps(msg, default=str)

    frames: list[bytes | None] = []
    views = [SharedIopub.view("relay-test", shared.km) for _ in range(3)]
    for view in views:
        view.on_recv(lambda msg_list, view=view: frames.append(view.json_frame(msg_list, encode)))
    msg_list = kernel_message("comm_msg", {"data": {"events": ["é" * 300]}})
    _, parts = SESSION.feed_identities(msg_list)
    expected = {**SESSION.deserialize(parts, content=True), "channel": "iopub"}
    SESSION.digest_history.clear()  # the relay checks the same signature once more
    assert shared.km.receive is not None
    shared.km.receive(msg_list)
    assert len(encoded) == 1  # once, not once per client
    assert frames[0] is not None
    assert all(frame is frames[0] for frame in frames)
    assert frames[0] == await tornados_text_frame(json.dumps(expected, default=str))
    assert not any(r is shared for r in gc.get_referrers(frames[0]))  # not kept after


def test_a_message_the_json_encoding_refuses_goes_the_usual_way(shared: SharedIopub) -> None:
    def refuse(msg_list: list[bytes]) -> str:
        raise ValueError("bad signature")

    view = SharedIopub.view("relay-test", shared.km)
    assert view.json_frame(kernel_message("status", {"execution_state": "idle"}), refuse) is None
