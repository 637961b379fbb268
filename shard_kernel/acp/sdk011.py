"""`shard acp` on the ACP SDK 0.11 (the version jupyter-ai 3.2's ACP client pins).

0.11's AgentSideConnection reads and writes asyncio streams itself (0.12 takes a transport):
its reader here is `CheckedReader`, which answers a line that is not a JSON-RPC message with
the same error 0.12's transport sends (transport.py's `check_line`) and hands the connection
only real messages, so the process keeps serving either way. Everything else in `shard acp`
uses what both versions have.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import orjson
from acp import Agent
from acp.agent.connection import AgentSideConnection

from shard_kernel.acp.transport import check_line


class CheckedReader(asyncio.StreamReader):
    """The StreamReader 0.11's Connection reads lines from (it insists on the class), minus
    the lines that are not messages (each answered on `writer`); reads go to `reader`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._reader = reader
        self._writer = writer

    async def readuntil(self, separator: bytes = b"\n") -> bytes:  # pyright: ignore[reportIncompatibleMethodOverride]
        while True:
            line = await self._reader.readuntil(separator)
            if not line.strip():
                return line
            _, error = check_line(line.strip())
            if error is None:
                return line
            self._writer.write(orjson.dumps(error, option=orjson.OPT_APPEND_NEWLINE))

    async def readexactly(self, n: int) -> bytes:
        return await self._reader.readexactly(n)


def connection_011(
    agent: object, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> AgentSideConnection:
    """0.11's `AgentSideConnection(agent, writer, reader, listening=False)`."""
    make = cast(Any, AgentSideConnection)
    return make(cast(Agent, agent), writer, CheckedReader(reader, writer), listening=False)
