"""IOPubHold over ipykernel's real IOPubThread and a real ZMQ PUB/SUB pair."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import zmq
from ipykernel.iostream import IOPubThread

from shard_kernel.iopub_hold import IOPubHold

pytestmark = pytest.mark.integration


class Wire:
    """A started IOPubThread on a bound PUB socket, a SUB reading it, and a count of the
    hand-overs to the thread (each one is a wake-up)."""

    def __init__(self) -> None:
        self.ctx = zmq.Context()
        pub = self.ctx.socket(zmq.PUB)
        port = pub.bind_to_random_port("tcp://127.0.0.1")
        self.thread = IOPubThread(pub)
        self.thread.start()
        self.wakes = 0
        schedule = self.thread.schedule

        def counted(f: Any) -> None:
            self.wakes += 1
            schedule(f)

        self.thread.schedule = counted  # type: ignore[method-assign]
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(f"tcp://127.0.0.1:{port}")
        self.hold = IOPubHold(self.thread)
        deadline = time.monotonic() + 10
        while not self.sub.poll(10):  # until the subscription has reached the PUB
            assert time.monotonic() < deadline
            self.hold.send_multipart([b"probe"])
        while self.sub.poll(50):
            self.sub.recv_multipart()
        self.wakes = 0

    def received(self, count: int, timeout: float = 5.0) -> list[bytes]:
        got: list[bytes] = []
        deadline = time.monotonic() + timeout
        while len(got) < count and time.monotonic() < deadline:
            if self.sub.poll(50):
                got.append(self.sub.recv_multipart()[0])
        return got

    def close(self) -> None:
        self.thread.stop()
        self.thread.close()
        self.sub.close(linger=0)
        self.ctx.term()


@pytest.fixture
def wire() -> Iterator[Wire]:
    w = Wire()
    try:
        yield w
    finally:
        w.close()


def test_held_messages_leave_together_in_order_on_release(wire: Wire) -> None:
    assert wire.hold.hold()
    assert not wire.hold.hold()  # already holding
    for n in range(3):
        wire.hold.send_multipart([f"m{n}".encode()])
    assert wire.received(1, timeout=0.3) == []  # nothing leaves while held
    assert wire.wakes == 0
    wire.hold.release()
    assert wire.received(3) == [b"m0", b"m1", b"m2"]
    assert wire.wakes == 1  # one hand-over for the three


def test_without_a_hold_each_message_goes_at_once(wire: Wire) -> None:
    wire.hold.send_multipart([b"a"])
    assert wire.received(1) == [b"a"]
    wire.hold.send_multipart([b"b"])
    assert wire.received(1) == [b"b"]
    assert wire.wakes == 2
    wire.hold.release()  # nothing held: no hand-over
    assert wire.wakes == 2


def test_another_threads_message_releases_the_hold_first(wire: Wire) -> None:
    """The main thread's held messages were published first, so they leave first."""
    assert wire.hold.hold()
    wire.hold.send_multipart([b"main-1"])
    wire.hold.send_multipart([b"main-2"])
    other = threading.Thread(target=wire.hold.send_multipart, args=([b"other"],))
    other.start()
    other.join()
    assert not wire.hold.holding
    assert wire.received(3) == [b"main-1", b"main-2", b"other"]
    wire.hold.send_multipart([b"main-3"])  # the hold is over: straight out
    assert wire.received(1) == [b"main-3"]


def test_a_stopped_thread_sends_on_the_callers_thread(wire: Wire) -> None:
    """ipykernel's own fallback (a forked or stopped IOPub thread) still applies."""
    assert wire.hold.hold()
    wire.hold.send_multipart([b"late"])
    wire.thread.stop()
    wire.hold.release()
    assert wire.received(1) == [b"late"]
