"""`shard acp`: Shard as an Agent Client Protocol agent over stdio (Zed, marimo, jupyter-ai, …).

`serve` runs one ACP connection on stdin/stdout with the `agent-client-protocol` SDK; nothing
but protocol messages reaches stdout (logging goes to stderr). `server.py` holds the ACP agent,
`session.py` one session (a Shard agent), `updates.py` how events become session updates,
`permissions.py` the gate's questions as `session/request_permission`, `replay.py`
session/load's replay, `transport.py` the stdio plumbing.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import cast

from acp import Agent
from acp.agent.connection import AgentSideConnection
from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES

from shard_kernel.acp.server import AcpOptions, ShardAcpAgent
from shard_kernel.acp.transport import SDK_TAKES_TRANSPORT, RepliedNdjson, protocol_stdio

__all__ = ["AcpOptions", "ShardAcpAgent", "serve"]


async def serve(options: AcpOptions) -> int:
    """Serve ACP on stdio until the host closes stdin; returns the exit status."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="shard acp: %(levelname)s %(message)s"
    )
    reader, writer = await protocol_stdio(DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    agent = ShardAcpAgent(options)
    # the unstable methods (fork, resume, close, config options) are not implemented: the
    # SDK's router answers them with method-not-found
    if SDK_TAKES_TRANSPORT:
        transport = RepliedNdjson(reader, writer)
        connection = AgentSideConnection(cast(Agent, agent), transport, listening=False)
    else:  # the SDK 0.11 (jupyter-ai 3.2's pin): the connection takes the streams
        from shard_kernel.acp.sdk011 import connection_011

        connection = connection_011(agent, reader, writer)
    try:
        await connection.listen()
    finally:
        await agent.close()
        await asyncio.shield(connection.close())
    return 0
