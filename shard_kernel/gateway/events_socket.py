"""`/shard/api/events`: the orchestrator events on a WebSocket, resumable with `since` and `epoch`.

Authenticated and origin-checked like every Shard route (a token, or the login cookie; the Origin
compared exactly even for token-bearing requests), authorized as reading `kernels`. A subscriber
that names the `epoch` and the last `seq` it saw gets the events after it; any other gets an
`agents_snapshot` first (`gap: true` when its resume could not be served). Text frames, one JSON
event each. A subscriber that stops reading is closed once MAX_PENDING frames wait for it (it
reconnects with `since`): a slow browser never makes the server buffer without bound.
"""

from __future__ import annotations

import re
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from shard_kernel.gateway.events import AgentWatcher, EventJournal

WATCHER_KEY = "shard_events"
MAX_PENDING = 2000
"""Frames written but not yet flushed to a subscriber before it is closed (code 1013)."""
TRY_AGAIN = 1013
EPOCH = re.compile(r"[0-9a-f]{1,32}")


class EventsSocketHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):  # pyright: ignore[reportIncompatibleMethodOverride, reportIncompatibleVariableOverride]
    auth_resource = "kernels"
    _since: int | None = None
    _epoch: str | None = None
    _pending = 0
    _unsubscribe: Any = None

    def skip_check_origin(self) -> bool:
        return False  # as ShardAPIHandler: token-bearing requests are origin-checked too

    @property
    def watcher(self) -> AgentWatcher:
        return self.settings[WATCHER_KEY]

    @property
    def journal(self) -> EventJournal:
        return self.watcher.journal

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        allowed = await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "read", "kernels")
        )
        if not allowed:
            raise web.HTTPError(403)
        self._since = _since(self.get_query_argument("since", None))
        epoch = self.get_query_argument("epoch", None)
        if epoch is not None and not EPOCH.fullmatch(epoch):
            raise web.HTTPError(400, "epoch must be the hex string an agents_snapshot gave")
        self._epoch = epoch
        await super().get(*args, **kwargs)

    def open(self, *args: Any, **kwargs: Any) -> None:
        super().open(*args, **kwargs)  # starts the keep-alive pings
        resume = self.journal.resume(self._epoch, self._since)
        if self._since is None or resume.gap:
            snapshot = self.watcher.snapshot(gap=resume.gap)
            self._send(snapshot.model_dump_json())
        for _seq, text in resume.events:
            self._send(text)
        self._unsubscribe = self.journal.subscribe(self._on_event)

    def on_message(self, message: str | bytes) -> None:
        """Subscribers only listen; anything they send is ignored."""

    def on_close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_event(self, seq: int, text: str) -> None:
        if self._pending >= MAX_PENDING:
            self.on_close()
            self.close(TRY_AGAIN, "too far behind: reconnect with since")
            return
        self._send(text)

    def _send(self, text: str) -> None:
        try:
            future = self.write_message(text)
        except WebSocketClosedError:
            self.on_close()
            return
        self._pending += 1
        future.add_done_callback(self._flushed)

    def _flushed(self, future: Any) -> None:
        self._pending -= 1
        if future.cancelled() or future.exception() is not None:
            self.on_close()


def _since(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise web.HTTPError(400, "since must be an integer (the last seq seen)") from None
    if value < 0:
        raise web.HTTPError(400, "since must be at least 0")
    return value


SOCKET_ROUTES: tuple[tuple[str, type[EventsSocketHandler]], ...] = (
    (r"/shard/api/events", EventsSocketHandler),
)
