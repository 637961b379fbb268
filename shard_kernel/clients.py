"""ClientRegistry: who is attached to this agent, in which role, and who can answer asks.

A client attaches by opening a comm on target `shard`. It counts as attached while its comm is
open and it has been heard from (attach, heartbeat or any command) within `ttl` seconds, and as
a responder when its role is also interactive — a client whose socket went away without a
comm_close stops counting within the TTL (it counts again when it is heard from).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from shard_core.protocol.events import ClientCounts

HEARTBEAT_TTL = 60.0


@dataclass
class Client:
    comm: Any
    client_id: str
    role: str
    seen: float = field(default_factory=time.monotonic)
    label: str | None = None
    """what people call it ("alice · Tab 2"): who decided, in permission_resolved"""
    session: str | None = None
    """the Jupyter session that opened the comm (a notebook's cells come from the same one)"""

    @property
    def name(self) -> str:
        return self.label or self.client_id

    @property
    def comm_id(self) -> str:
        return str(self.comm.comm_id)


class ClientRegistry:
    def __init__(self, ttl: float = HEARTBEAT_TTL) -> None:
        self.ttl = ttl
        self._by_comm: dict[str, Client] = {}

    def attach(
        self,
        comm: Any,
        client_id: str,
        role: str,
        *,
        label: str | None = None,
        session: str | None = None,
    ) -> Client:
        client = Client(comm=comm, client_id=client_id, role=role, label=label, session=session)
        self._by_comm[client.comm_id] = client
        return client

    def get(self, comm_id: str) -> Client | None:
        return self._by_comm.get(comm_id)

    def touch(self, comm_id: str) -> None:
        if (client := self._by_comm.get(comm_id)) is not None:
            client.seen = time.monotonic()

    def detach(self, comm_id: str) -> Client | None:
        return self._by_comm.pop(comm_id, None)

    def clients(self) -> list[Client]:
        return list(self._by_comm.values())

    def counts(self) -> ClientCounts:
        """Attached clients by role: those heard from within the TTL."""
        now = time.monotonic()
        roles = [c.role for c in self._by_comm.values() if now - c.seen < self.ttl]
        return ClientCounts(
            interactive=roles.count("interactive"), observer=roles.count("observer")
        )

    def has_session(self, session: str | None) -> bool:
        """Whether a client opened its comm from this Jupyter session."""
        return session is not None and any(c.session == session for c in self._by_comm.values())

    def has_responder(self) -> bool:
        now = time.monotonic()
        return any(
            c.role == "interactive" and now - c.seen < self.ttl for c in self._by_comm.values()
        )
