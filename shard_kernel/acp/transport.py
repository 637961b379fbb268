"""The stdio transport of `shard acp`: protocol messages alone on stdout, JSON-RPC errors for
lines that are not messages.

`protocol_stdio` moves the real stdout aside (a duplicate of fd 1 carries the protocol) and
points fd 1 and `sys.stdout` at stderr, so a stray print, a library's warning or a child process
that inherits fd 1 can never corrupt the stream. `RepliedNdjson` is the SDK's own NDJSON
transport, except that a line which is not JSON gets a parse error (-32700) and a JSON value
that is not a message object an invalid-request error (-32600), both with `id: null` as
JSON-RPC 2.0 says, instead of being dropped silently; the process keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, cast

import orjson
from acp.exceptions import RequestError

if TYPE_CHECKING:
    from acp._transport import NdjsonTransport
else:  # the SDK from 0.12 on; 0.11 (jupyter-ai 3.2's pin) has no transports: sdk011.py
    try:
        from acp._transport import NdjsonTransport
    except (
        ImportError
    ):  # exercised under the SDK 0.11 (tests/integration/acp, SHARD_TEST_ACP_PYTHON)
        NdjsonTransport = object

SDK_TAKES_TRANSPORT = NdjsonTransport is not object
"""the SDK 0.12 (the connection takes a transport); False under 0.11 (it takes the streams)"""

_log = logging.getLogger("shard.acp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
HIGH_WATER = 1 << 20


class RepliedNdjson(NdjsonTransport):
    """NDJSON over asyncio streams; a malformed line is answered, not dropped. A message is
    written the moment it is sent (the SDK's sender queue would cost every streamed chunk a
    trip through the event loop); `drain` waits only when the pipe's buffer is full."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__(reader, cast(Any, None))
        self._writer = writer

    async def send(self, message: dict[str, Any]) -> None:
        self._writer.write(orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
        if self._writer.transport.get_write_buffer_size() > HIGH_WATER:
            await self._writer.drain()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._writer.drain()
        self._writer.close()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            message, error = check_line(line)
            if error is not None:
                await self.send(error)
                continue
            return message


def error_reply(code: int, message: str, request_id: object) -> dict[str, Any]:
    """The JSON-RPC error answering a line that is not a message (`id: null` when unknown)."""
    error = RequestError(code, message).to_error_obj()
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def check_line(line: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A received line as (message, None), or (None, the error reply it gets)."""
    try:
        message: Any = json.loads(line)
    except ValueError as exc:
        _log.warning("acp: parse error: not JSON (%s)", exc)
        return None, error_reply(PARSE_ERROR, f"parse error: not JSON ({exc})", None)
    problem = _not_a_message(message)
    if problem is None:
        return message, None
    _log.warning("acp: invalid request: %s", problem)
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    return None, error_reply(INVALID_REQUEST, f"invalid request: {problem}", request_id)


def _not_a_message(message: Any) -> str | None:
    """Why a parsed JSON value is not a JSON-RPC 2.0 request, notification or response."""
    if isinstance(message, list):
        return "batches are not part of ACP; send one message per line"
    if not isinstance(message, dict):
        return f"expected a JSON object, got {type(message).__name__}"
    if message.get("jsonrpc") != "2.0":
        return 'expected "jsonrpc": "2.0"'
    method = message.get("method")
    if method is None:
        if "id" in message and ("result" in message or "error" in message):
            return None  # a response to one of our requests
        return "a message needs a method (or, as a response, an id and a result or error)"
    if not isinstance(method, str):
        return "method must be a string"
    params = message.get("params")
    if params is not None and not isinstance(params, dict | list):
        return "params must be an object"
    return None


async def protocol_stdio(limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin as a reader and the real stdout as a writer; fd 1 becomes stderr from now on."""
    loop = asyncio.get_running_loop()
    protocol_fd = os.dup(sys.stdout.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    reader = asyncio.StreamReader(limit=limit)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = os.fdopen(protocol_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), out
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
