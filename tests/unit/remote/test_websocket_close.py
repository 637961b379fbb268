"""Closing a client WebSocket frees its TCP socket even when the server never answers the close
handshake, and when the wait for it is cancelled (a loop shutting down): tornado's `close()`
alone leaves the socket to the garbage collector, whose ResourceWarning once failed CI."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from shard_kernel.gateway.client import KernelSocket, close_websocket
from shard_kernel.remote import EventFeed, GatewayLink

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3


async def _deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Accepts the upgrade, then reads and ignores everything: no close frame ever comes back."""
    head = await reader.readuntil(b"\r\n\r\n")
    key = next(
        line.split(b":", 1)[1].strip()
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"sec-websocket-key:")
    )
    accept = base64.b64encode(hashlib.sha1(key + GUID.encode()).digest())
    writer.write(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    )
    await writer.drain()
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
        while await reader.read(4096):
            pass
    writer.close()


@pytest.fixture
async def deaf_server() -> AsyncIterator[str]:
    server = await asyncio.start_server(_deaf, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"127.0.0.1:{port}"
    server.close()
    await server.wait_closed()


async def _connect(where: str) -> tuple[WebSocketClientConnection, Any]:
    conn = await websocket_connect(HTTPRequest(f"ws://{where}/any"))
    assert conn.protocol is not None
    stream = conn.protocol.stream
    assert stream is not None
    assert not stream.closed()
    return conn, stream


async def test_an_unanswered_close_drops_the_socket_after_the_wait(deaf_server: str) -> None:
    conn, stream = await _connect(deaf_server)
    await close_websocket(conn, within=0.2)
    assert stream.closed()


async def test_a_cancelled_close_still_drops_the_socket(deaf_server: str) -> None:
    conn, stream = await _connect(deaf_server)
    closing = asyncio.ensure_future(close_websocket(conn, within=60))
    await asyncio.sleep(0.05)
    assert not stream.closed()  # still waiting for the server's half of the handshake
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
    assert stream.closed()


async def test_the_event_feed_closes_its_socket(deaf_server: str) -> None:
    feed = EventFeed(GatewayLink(f"http://{deaf_server}/"))
    await feed.connect(within=5)
    conn = feed._conn
    assert conn is not None
    assert conn.protocol is not None
    stream = conn.protocol.stream
    await feed.close()
    assert stream is not None
    assert stream.closed()


async def test_a_kernel_socket_closed_first_still_drops_its_socket_on_aclose(
    deaf_server: str,
) -> None:
    """`close()` (a connection the other end closed) then `aclose()`: tornado forgets the
    protocol at `close()`, so `aclose` must use the stream kept at open (%shard attach's
    RemoteAgent leaked one this way when a loop stopped before the handshake ended)."""
    conn, stream = await _connect(deaf_server)
    sock = KernelSocket(conn, "session")
    sock.close()
    assert conn.protocol is None
    await sock.aclose(within=0.2)
    assert stream.closed()
