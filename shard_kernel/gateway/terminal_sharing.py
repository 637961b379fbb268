"""An agent's server terminal shared with people: whose size its pty takes, and its end noticed.

terminado sizes a pty to the smallest of its clients (`PtyWithClients.resize_to_smallest`, run
on every `set_size` and every disconnect). The agent's own client would then cap a person's
window at the agent's 32x120, and the agent's screen model (pyte) would keep drawing 32x120
whatever the pty's size was. For an agent's terminal the people decide: the smallest of their
windows while any is open, the agent's size only while none is; and each agent socket (the one
that connected with `?shard_agent=1`) is told the size, `["shard_size", rows, cols]`, whenever
it changes, before any output the program draws for it, so its screen is the person's.

A silent client in the terminal's client list tells the registry when the pty ends (terminado
calls every client's `on_pty_died`), so the sidebar's list of the agent's terminals follows.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from tornado.websocket import WebSocketClosedError

AGENT_QUERY = "shard_agent"
"""the query argument of the agent's own terminal WebSocket"""
SIZE_MESSAGE = "shard_size"
MAX_SIDE = 10_000
"""terminado's own bound on a client's rows or columns"""

Size = tuple[int, int]


def is_agent(client: Any) -> bool:
    request = getattr(client, "request", None)
    return request is not None and AGENT_QUERY in getattr(request, "query_arguments", {})


def _size(client: Any) -> Size | None:
    """A client's (rows, columns) if it set a usable one (a `set_size` of two whole numbers)."""
    size = getattr(client, "size", None)
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        return None
    rows, columns = size
    for side in (rows, columns):
        if not isinstance(side, int) or isinstance(side, bool) or not 0 < side < MAX_SIDE:
            return None
    return rows, columns


def chosen_size(clients: Iterable[Any]) -> Size | None:
    """The smallest of the people's windows; the agents' size when no person set one."""
    sized = [(client, size) for client in clients if (size := _size(client)) is not None]
    people = [size for client, size in sized if not is_agent(client)]
    sizes = people or [size for _, size in sized]
    if not sizes:
        return None
    return min(rows for rows, _ in sizes), min(columns for _, columns in sizes)


class _EndWatch:
    """A client that shows nothing and sets no size; it hears the pty end."""

    size = (None, None)

    def __init__(self, on_end: Callable[[], None]) -> None:
        self._on_end = on_end

    def on_pty_read(self, text: str) -> None:
        pass

    def on_pty_died(self) -> None:
        self._on_end()


def share(term: Any, on_end: Callable[[], None]) -> None:
    """Makes terminado's `term` (a PtyWithClients) size itself for people and tell its agent
    sockets the size; `on_end` runs when its process has ended."""
    told: weakref.WeakKeyDictionary[Any, Size] = weakref.WeakKeyDictionary()

    def resize() -> None:
        size = chosen_size(term.clients)
        if size is None:
            return
        if tuple(term.ptyproc.getwinsize()) != size:
            term.ptyproc.setwinsize(*size)
        for client in list(term.clients):
            if is_agent(client) and told.get(client) != size:
                told[client] = size
                with contextlib.suppress(WebSocketClosedError):  # it is going: on_close resizes
                    client.send_json_message([SIZE_MESSAGE, *size])

    # terminado's sockets call this on every set_size and close; the instance's own attribute
    # is the one seam it offers (the manager, not this code, makes the PtyWithClients)
    term.resize_to_smallest = resize
    term.clients.append(_EndWatch(on_end))
