"""`shard acp`'s chunk fast path writes exactly what the SDK's models would, and reaches the
SDK connection's sender where the SDK keeps it (a pin: an SDK upgrade that moves it fails here)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from acp import Agent
from acp.agent.connection import AgentSideConnection
from acp.schema import SessionNotification
from acp.utils import serialize_params

from shard_core.protocol.events import MessageDeltaEvent
from shard_kernel.acp.session import chunk_params, raw_notify
from shard_kernel.acp.updates import text_chunk


@pytest.mark.parametrize(
    ("channel", "text"),
    [("text", "hello "), ("thinking", "hmm"), ("text", 'quotes " and \\ and \u00e9\n')],
)
def test_a_chunk_is_the_sdk_serialisation_of_its_update(channel: str, text: str) -> None:
    event = MessageDeltaEvent(
        agent_id="a", seq=1, ts=0.0, turn_id="t", channel=cast(Any, channel), delta=text
    )
    update = text_chunk(text, thought=channel == "thinking")
    sdk = serialize_params(SessionNotification(session_id="s-1", update=update))
    assert chunk_params("s-1", event) == sdk


class _Sink:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    async def receive(self) -> dict[str, Any] | None:
        await asyncio.sleep(3600)
        return None

    async def close(self) -> None:
        return None


async def test_the_raw_sender_is_the_sdk_connections_and_writes_a_notification() -> None:
    sink = _Sink()
    conn = AgentSideConnection(cast(Agent, object()), cast(Any, sink), listening=False)
    notify = raw_notify(conn)
    assert notify is not None
    await notify("session/update", {"sessionId": "s", "update": {}})
    assert sink.sent == [
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {}}}
    ]
    assert raw_notify(cast(Any, object())) is None
