"""ClientRegistry: a client counts while it is heard from within the TTL — a socket that went
away without a comm_close stops counting by itself, and counts again when heard from."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from shard_kernel import clients as clients_module
from shard_kernel.clients import ClientRegistry


@dataclass
class FakeComm:
    comm_id: str


def test_a_client_not_heard_from_within_the_ttl_stops_counting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = ClientRegistry(ttl=60.0)
    registry.attach(FakeComm("a"), "tab-a", "interactive")
    registry.attach(FakeComm("b"), "tab-b", "observer")
    now = [max(c.seen for c in registry.clients())]
    monkeypatch.setattr(clients_module.time, "monotonic", lambda: now[0])

    now[0] += 59.0
    registry.touch("b")
    assert (registry.counts().interactive, registry.counts().observer) == (1, 1)
    assert registry.has_responder()

    now[0] += 2.0  # a's last word was 61 s ago: its socket is gone
    assert (registry.counts().interactive, registry.counts().observer) == (0, 1)
    assert not registry.has_responder()

    registry.touch("a")  # heard from again (a heartbeat): it counts again
    assert registry.counts().interactive == 1
