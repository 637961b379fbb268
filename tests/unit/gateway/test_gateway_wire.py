"""Gateway wire pieces without processes: v1 frames, batch unpacking, the kernel's event batcher."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)

from shard_core.protocol import EventBatch, StatusEvent
from shard_kernel.event_batch import EventBatcher
from shard_kernel.gateway.client import (
    EVENTS_COMM_ID,
    V1_SUBPROTOCOL,
    KernelSocket,
    decode_v1,
    encode_v1,
    shard_event,
    shard_events,
)


def parts(content: dict[str, Any], msg_type: str = "comm_msg") -> list[bytes]:
    header = {"msg_id": "m1", "msg_type": msg_type, "date": "2026-01-01T00:00:00Z"}
    return [json.dumps(p).encode() for p in (header, {"msg_id": "p"}, {}, content)]


def test_v1_frames_match_jupyter_servers_own_codec() -> None:
    frame = encode_v1("shell", parts({"a": 1}))
    assert deserialize_msg_from_ws_v1(frame) == ("shell", parts({"a": 1}))
    served = serialize_msg_to_ws_v1([*parts({"b": 2}), b"raw"], "iopub")
    message = decode_v1(served)
    assert message["channel"] == "iopub"
    assert (message["msg_type"], message["content"], message["buffers"]) == (
        "comm_msg",
        {"b": 2},
        [b"raw"],
    )
    assert message["parent_header"] == {"msg_id": "p"}


def event(seq: int, kind: str = "status") -> dict[str, Any]:
    if kind == "message_delta":
        return {"type": kind, "agent_id": "agent-x", "seq": seq, "ts": 1.0, "turn_id": "t",
                "delta": "x"}  # fmt: skip
    return {"type": "status", "agent_id": "agent-x", "seq": seq, "ts": 1.0, "status": "idle",
            "mode": "build", "model": "m"}  # fmt: skip


def delta(seq: int) -> dict[str, Any]:
    return event(seq, "message_delta")


class FakeConn:
    selected_subprotocol = V1_SUBPROTOCOL

    def __init__(self, frames: list[bytes | None]) -> None:
        self.frames = frames

    async def read_message(self) -> bytes | None:
        return self.frames.pop(0)


async def test_recv_unpacks_a_batch_into_one_message_per_event() -> None:
    batch = {"type": "event_batch", "events": [event(3), event(4), event(5)]}
    frames: list[bytes | None] = [
        encode_v1("iopub", parts({"comm_id": EVENTS_COMM_ID, "data": batch})),
        encode_v1("iopub", parts({"comm_id": EVENTS_COMM_ID, "data": event(6)})),
        None,
    ]
    sock = KernelSocket(FakeConn(frames), "session")  # type: ignore[arg-type]
    seqs = []
    while (message := await sock.recv(1)) is not None:
        data = shard_event(message)
        assert data is not None
        seqs.append(data["seq"])
    assert seqs == [3, 4, 5, 6]
    assert (sock.frames, sock.batches) == (2, 1)  # the close is no frame


def test_shard_events_reads_raw_messages_and_batches_validate() -> None:
    batch = {"type": "event_batch", "events": [event(1), event(2)]}
    raw = {
        "header": {"msg_type": "comm_msg"},
        "content": {"comm_id": EVENTS_COMM_ID, "data": batch},
    }
    assert [e["seq"] for e in shard_events(raw)] == [1, 2]
    assert shard_events({"header": {"msg_type": "status"}, "content": {}}) == []
    parsed = EventBatch.model_validate(batch)
    assert [type(e) for e in parsed.events] == [StatusEvent, StatusEvent]


async def test_the_batcher_sends_a_lone_event_alone_and_a_burst_as_one_batch() -> None:
    sent: list[dict[str, Any]] = []
    batcher = EventBatcher(lambda data, _parent: sent.append(data))
    batcher.add(delta(1))
    assert sent == []  # next loop iteration
    await asyncio.sleep(0)
    assert sent == [delta(1)]

    await asyncio.sleep(0.01)  # quiet again
    sent.clear()
    for seq in range(2, 7):
        batcher.add(delta(seq))
    await asyncio.sleep(0.02)
    assert sent == [{"type": "event_batch", "events": [delta(s) for s in range(2, 7)]}]

    sent.clear()
    batcher.add(delta(7))
    batcher.add(delta(8))
    batcher.flush()  # before any other message the kernel publishes
    assert sent == [{"type": "event_batch", "events": [delta(7), delta(8)]}]
    await asyncio.sleep(0.01)
    assert len(sent) == 1


async def test_a_state_change_leaves_at_once_with_what_waits_before_it() -> None:
    sent: list[dict[str, Any]] = []
    batcher = EventBatcher(lambda data, _parent: sent.append(data))
    batcher.add(delta(1))
    batcher.add(delta(2))
    batcher.add(event(3))  # a status: no waiting
    assert sent == [{"type": "event_batch", "events": [delta(1), delta(2), event(3)]}]
    await asyncio.sleep(0.01)
    assert len(sent) == 1
