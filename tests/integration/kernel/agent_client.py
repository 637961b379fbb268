"""AgentClient: a jupyter_client-based Shard client for tests — attach, commands, events."""

from __future__ import annotations

import time
import uuid
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

EVENTS_COMM_ID = "shard-events"


class AgentClient:
    def __init__(self, kc: BlockingKernelClient, client_id: str) -> None:
        self.kc = kc
        self.client_id = client_id
        self.comm_id = f"comm-{uuid.uuid4().hex[:8]}"
        self.events: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self.outputs: list[dict[str, Any]] = []

    def attach(
        self, role: str = "interactive", since: int = -1, label: str | None = None
    ) -> dict[str, Any]:
        data: dict[str, Any] = {"role": role, "client_id": self.client_id, "since": since}
        if label is not None:
            data["label"] = label
        msg = self.kc.session.msg(
            "comm_open", {"comm_id": self.comm_id, "target_name": "shard", "data": data}
        )
        self.kc.shell_channel.send(msg)
        return self.wait_reply("snapshot")

    def send(self, command: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": self.comm_id, "data": command})
        self.kc.shell_channel.send(msg)

    def command(self, command: dict[str, Any], kind: str = "reply") -> dict[str, Any]:
        self.send(command)
        return self.wait_reply(kind)

    def pump(self, timeout: float = 0.05) -> None:
        """Read every IOPub message available now (or within `timeout`)."""
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=timeout)
            except Exception:
                return
            self._sort(msg)

    def _sort(self, msg: dict[str, Any]) -> None:
        kind = msg["header"]["msg_type"]
        content = msg["content"]
        if kind == "comm_msg" and content["comm_id"] == EVENTS_COMM_ID:
            data = content["data"]
            batch = data.get("events") if data.get("type") == "event_batch" else None
            self.events.extend(batch if batch is not None else [data])
        elif kind == "comm_msg" and content["comm_id"] == self.comm_id:
            self.replies.append(content["data"])
        elif kind in ("display_data", "update_display_data", "error", "stream"):
            self.outputs.append(msg)

    def wait_for(self, predicate: Any, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                seen = [e["type"] for e in self.events][-20:]
                raise TimeoutError(
                    f"condition not met in time; replies {self.replies}, events {seen}"
                )
            self.pump(0.1)

    def wait_event(self, kind: str, timeout: float = 30.0, after: int = 0) -> dict[str, Any]:
        def found() -> bool:
            return any(e["type"] == kind for e in self.events[after:])

        self.wait_for(found, timeout)
        return next(e for e in self.events[after:] if e["type"] == kind)

    def wait_reply(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        start = len(self.replies)

        def found() -> bool:
            return any(r["type"] == kind for r in self.replies[start:])

        self.wait_for(found, timeout)
        return next(r for r in self.replies[start:] if r["type"] == kind)
