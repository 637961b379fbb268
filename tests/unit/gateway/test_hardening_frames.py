"""Issue 20 item 8: client frames are checked before jupyter_server's trusting decoders run."""

from __future__ import annotations

import json
import struct
import time

import pytest
from jupyter_server.gateway.connections import GatewayWebSocketConnection
from jupyter_server.services.kernels.connection.base import (
    deserialize_binary_message,
    deserialize_msg_from_ws_v1,
    serialize_binary_message,
    serialize_msg_to_ws_v1,
)
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from shard_kernel.gateway.client import V1_SUBPROTOCOL, encode_v1
from shard_kernel.gateway.connection import FrameCheck, install_connection_class
from shard_kernel.gateway.frames import (
    LEGACY_MAX_PARTS,
    MAX_BUFFERS,
    V1_MAX_OFFSETS,
    FrameError,
    check_frame,
)

PARTS = [json.dumps(p).encode() for p in ({"msg_type": "comm_msg"}, {}, {}, {"data": 1})]


def v1(count: int, offsets: list[int], tail: bytes = b"") -> bytes:
    head = b"".join(n.to_bytes(8, "little") for n in (count, *offsets))
    return head + tail


def legacy(count: int, offsets: list[int], tail: bytes = b"") -> bytes:
    return struct.pack(f"!i{len(offsets)}I", count, *offsets) + tail


def refusal(message: str | bytes, subprotocol: str | None = V1_SUBPROTOCOL) -> tuple[int, str]:
    with pytest.raises(FrameError) as caught:
        check_frame(message, subprotocol)
    reason = caught.value.reason
    assert len(reason.encode()) <= 123  # what a WebSocket close frame can carry
    return caught.value.code, reason


def test_what_jupyter_and_shard_clients_send_passes_and_decodes() -> None:
    buffers = [b"\x00" * 10, b"", b"xyz"]
    frames = [
        encode_v1("shell", PARTS),
        encode_v1("shell", PARTS + buffers),
        encode_v1("iopub", PARTS + [b""] * MAX_BUFFERS),
        serialize_msg_to_ws_v1(PARTS, "control"),
    ]
    for frame in frames:
        check_frame(frame, V1_SUBPROTOCOL)
        channel, parts = deserialize_msg_from_ws_v1(frame)
        assert channel in ("shell", "iopub", "control")
        assert parts[:4] == PARTS
    message = {"header": {}, "parent_header": {}, "content": {"a": 1}, "buffers": buffers}
    blob = serialize_binary_message(message)
    check_frame(blob, None)
    assert deserialize_binary_message(blob)["buffers"] == buffers
    check_frame('{"channel": "shell"}', None)  # a JSON client's text frame: untouched


def test_a_frame_claiming_millions_of_parts_is_refused_without_reading_them() -> None:
    frame = v1(5_000_000, [16])
    start = time.perf_counter()
    assert refusal(frame) == (1003, "bad v1 frame: 5000000 offsets claimed, at most 262 allowed")
    assert refusal(v1(2**64 - 1, [16]))[1].endswith(" offsets claimed, at most 262 allowed")
    assert refusal(legacy(2**31 - 1, [8]), None) == (
        1003,
        "bad binary frame: 2147483647 parts claimed, at most 257 allowed",
    )
    assert time.perf_counter() - start < 0.01


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b"\x01\x02", "2 bytes, too short for its offset count"),
        (v1(3, [32, 37, 40]), "3 offsets claimed, at least 6 allowed"),
        (v1(V1_MAX_OFFSETS + 1, []), "263 offsets claimed, at most 262 allowed"),
        (v1(6, [56, 61]), "24 bytes, too short for 6 offsets"),
        (v1(6, [8, 61, 61, 61, 61, 61]), "the first part starts inside the offset table"),
        (v1(6, [56, 61, 60, 61, 61, 61], b"shell"), "the offsets decrease"),
        (v1(6, [56, 61, 61, 61, 61, 99], b"shell"), "an offset points past the end of the frame"),
        (v1(6, [56, 76, 76, 76, 76, 76], b"s" * 20), "the channel is not a channel name"),
        (v1(6, [56, 62, 62, 62, 62, 62], "shéll".encode()), "the channel is not a channel name"),
        ('{"channel": "shell"}', "v1 frames are binary, this one is text"),
    ],
)  # fmt: skip
def test_each_malformed_v1_frame_is_refused_with_its_reason(
    frame: str | bytes, reason: str
) -> None:
    assert refusal(frame) == (1003, f"bad v1 frame: {reason}")


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b"\x00", "1 bytes, too short for its part count"),
        (legacy(-1, []), "-1 parts claimed, at least 1 allowed"),
        (legacy(0, []), "0 parts claimed, at least 1 allowed"),
        (legacy(LEGACY_MAX_PARTS + 1, []), "258 parts claimed, at most 257 allowed"),
        (legacy(2, [12]), "8 bytes, too short for 2 offsets"),
        (legacy(2, [4, 12], b"{}"), "the first part starts inside the offset table"),
        (legacy(2, [14, 12], b"{}"), "the offsets decrease"),
        (legacy(2, [12, 40], b"{}"), "an offset points past the end of the frame"),
    ],
)  # fmt: skip
def test_each_malformed_binary_frame_of_the_json_protocol_is_refused(
    frame: bytes, reason: str
) -> None:
    assert refusal(frame, None) == (1003, f"bad binary frame: {reason}")


def test_every_kernel_connection_class_checks_frames_first() -> None:
    for base in (ZMQChannelsWebsocketConnection, GatewayWebSocketConnection):
        settings: dict[str, type] = {"kernel_websocket_connection_class": base}
        install_connection_class(settings)
        mro = settings["kernel_websocket_connection_class"].__mro__
        assert mro[1] is FrameCheck, base  # before the agent connection's own comm parsing
