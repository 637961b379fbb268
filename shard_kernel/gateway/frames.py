"""Checking a client's kernel WebSocket frame before jupyter_server decodes it.

jupyter_server's binary decoders trust the part count a frame states: a 16-byte v1 frame that
claimed 5 million offsets held the server's only thread for ~6 s (every client and REST call
waited), and the JSON protocol's binary frame claiming 2**31 parts builds a 2 GB `struct`
format. The checks here read the count first and refuse it beyond a small bound, then read
only that many offsets. A frame's total size is bounded before it gets here, by tornado's
`websocket_max_message_size` (10 MiB unless configured; it closes with 1009).
"""

from __future__ import annotations

import struct
from itertools import pairwise

from shard_kernel.gateway.client import V1_SUBPROTOCOL

UNSUPPORTED_DATA = 1003
"""WebSocket close code: the endpoint got data it cannot accept."""
MAX_BUFFERS = 256
"""Binary buffers one message may carry (a widget's arrays); far more than any client sends."""
V1_MAX_OFFSETS = MAX_BUFFERS + 6
"""channel, header, parent_header, metadata, content, the buffers, and the end."""
V1_MIN_OFFSETS = 6
LEGACY_MAX_PARTS = MAX_BUFFERS + 1
"""the JSON message and the buffers"""
MAX_CHANNEL = 16


class FrameError(Exception):
    """A frame refused; `reason` is what the closing socket says (short: a close reason is at
    most 123 bytes)."""

    def __init__(self, reason: str, code: int = UNSUPPORTED_DATA) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def check_frame(message: str | bytes, subprotocol: str | None) -> None:
    """Raise FrameError unless jupyter_server can decode `message` in bounded time.

    A text frame on the JSON protocol is plain JSON (json.loads is linear): not checked."""
    if subprotocol == V1_SUBPROTOCOL:
        if not isinstance(message, bytes):
            raise FrameError("bad v1 frame: v1 frames are binary, this one is text")
        check_v1(message)
    elif isinstance(message, bytes):
        check_legacy(message)


def check_v1(frame: bytes) -> None:
    """8-byte little-endian offset count n, n offsets, then the channel and the parts."""
    if len(frame) < 8:
        raise FrameError(f"bad v1 frame: {len(frame)} bytes, too short for its offset count")
    count = int.from_bytes(frame[:8], "little")
    if not V1_MIN_OFFSETS <= count <= V1_MAX_OFFSETS:
        bound = "at least" if count < V1_MIN_OFFSETS else "at most"
        limit = V1_MIN_OFFSETS if count < V1_MIN_OFFSETS else V1_MAX_OFFSETS
        raise FrameError(f"bad v1 frame: {count} offsets claimed, {bound} {limit} allowed")
    offsets = _offsets(frame, "<", 8, count, "Q", "v1 frame")
    channel = frame[offsets[0] : offsets[1]]
    if len(channel) > MAX_CHANNEL or not channel.isascii():
        raise FrameError("bad v1 frame: the channel is not a channel name")


def check_legacy(frame: bytes) -> None:
    """The JSON protocol's binary form: 4-byte big-endian part count n, n offsets, the parts."""
    if len(frame) < 4:
        raise FrameError(f"bad binary frame: {len(frame)} bytes, too short for its part count")
    (count,) = struct.unpack_from("!i", frame)
    if not 1 <= count <= LEGACY_MAX_PARTS:
        bound = "at least" if count < 1 else "at most"
        limit = 1 if count < 1 else LEGACY_MAX_PARTS
        raise FrameError(f"bad binary frame: {count} parts claimed, {bound} {limit} allowed")
    _offsets(frame, "!", 4, count, "I", "binary frame")


def _offsets(frame: bytes, order: str, width: int, count: int, kind: str, what: str) -> list[int]:
    """The `count` offsets after the count field: past the table, never decreasing, inside."""
    table_end = width * (count + 1)
    if table_end > len(frame):
        raise FrameError(f"bad {what}: {len(frame)} bytes, too short for {count} offsets")
    offsets = list(struct.unpack_from(f"{order}{count}{kind}", frame, width))
    if offsets[0] < table_end:
        raise FrameError(f"bad {what}: the first part starts inside the offset table")
    if any(later < earlier for earlier, later in pairwise(offsets)):
        raise FrameError(f"bad {what}: the offsets decrease")
    if offsets[-1] > len(frame):
        raise FrameError(f"bad {what}: an offset points past the end of the frame")
    return offsets
