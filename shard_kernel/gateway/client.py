"""KernelSocket: one client of a kernel over jupyter_server's `/api/kernels/<id>/channels`.

Speaks the plain JSON WebSocket protocol (no subprotocol requested): every frame is one
Jupyter message with `header`, `parent_header`, `metadata`, `content`, `channel` and
`buffers`. The token travels in the Authorization header, never in the URL (URLs get logged).
Shard's per-agent commands ride on a comm with target `shard` (see docs/PROTOCOL.md §4).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

PROTOCOL_VERSION = "5.3"
COMM_TARGET = "shard"
EVENTS_COMM_ID = "shard-events"


class KernelSocket:
    def __init__(self, conn: WebSocketClientConnection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    @classmethod
    async def open(
        cls,
        base_url: str,
        kernel_id: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        session_id: str | None = None,
        within: float = 20.0,
    ) -> KernelSocket:
        """Connect; `base_url` is the server's http(s) URL, e.g. http://127.0.0.1:8888/."""
        session_id = session_id or uuid.uuid4().hex
        parts = urlsplit(base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = parts.path.rstrip("/") + f"/api/kernels/{kernel_id}/channels"
        url = f"{scheme}://{parts.netloc}{path}?session_id={session_id}"
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"token {token}"
        request = HTTPRequest(url, headers=all_headers, connect_timeout=within)
        conn = await asyncio.wait_for(
            websocket_connect(request, max_message_size=256 * 1024 * 1024), within
        )
        if conn.protocol is not None:  # many small frames: don't let Nagle hold them back
            conn.protocol.set_nodelay(True)
        return cls(conn, session_id)

    def send(
        self,
        channel: str,
        msg_type: str,
        content: dict[str, Any],
        *,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        msg_id = uuid.uuid4().hex
        message = {
            "header": {
                "msg_id": msg_id,
                "msg_type": msg_type,
                "username": "shard",
                "session": self.session_id,
                "date": datetime.now(UTC).isoformat(),
                "version": PROTOCOL_VERSION,
            },
            "parent_header": {},
            "metadata": metadata or {},
            "content": content,
            "channel": channel,
            "buffers": [],
        }
        self.conn.write_message(json.dumps(message))
        return msg_id

    async def recv(self, within: float | None = None) -> dict[str, Any] | None:
        """The next message; None when the socket is closed. TimeoutError after `within` s."""
        raw = await asyncio.wait_for(self.conn.read_message(), within)
        if raw is None:
            return None
        return json.loads(raw)

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------ Shard over Jupyter

    def execute(self, code: str) -> str:
        """A prompt (or a `/command`): execute_request on the shell channel."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        return self.send("shell", "execute_request", content)

    def open_comm(self, data: dict[str, Any], comm_id: str | None = None) -> str:
        """Attach to the agent: a comm on target `shard` whose data is the attach command."""
        comm_id = comm_id or f"comm-{uuid.uuid4().hex[:12]}"
        self.send(
            "shell", "comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": data}
        )
        return comm_id

    def comm_send(self, comm_id: str, data: dict[str, Any]) -> str:
        return self.send("shell", "comm_msg", {"comm_id": comm_id, "data": data})

    def comm_close(self, comm_id: str) -> str:
        return self.send("shell", "comm_close", {"comm_id": comm_id, "data": {}})


def msg_type(message: dict[str, Any]) -> str:
    return str((message.get("header") or {}).get("msg_type") or message.get("msg_type") or "")


def shard_event(message: dict[str, Any]) -> dict[str, Any] | None:
    """The Shard event a message carries, if it is one (a comm_msg on the events comm)."""
    content = message.get("content") or {}
    if msg_type(message) == "comm_msg" and content.get("comm_id") == EVENTS_COMM_ID:
        return content.get("data")
    return None


def comm_reply(message: dict[str, Any], comm_id: str) -> dict[str, Any] | None:
    """A reply (`snapshot`, `reply`) on this client's own comm, if the message is one."""
    content = message.get("content") or {}
    if msg_type(message) == "comm_msg" and content.get("comm_id") == comm_id:
        return content.get("data")
    return None
