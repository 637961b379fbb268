"""SnapshotDisplay: one widget output a notebook keeps, updated in place by its display_id.

A widget's display is published with a display_id (IPython's `display(..., display_id=)`), and
refreshed later with `update_display_data`. The refresh may come from another thread after the
cell finished (an in-process agent's loop, a gateway agent's reader): it is sent under the parent
header of the cell that displayed it, so the front end that ran that cell applies it — IPython's
own `update_display` would use whichever cell ran last.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("shard_widgets")


class SnapshotDisplay:
    def __init__(self, display_id: str) -> None:
        self.display_id = display_id
        self.shown = False
        self._parent: dict[str, Any] | None = None

    def show(self, data: dict[str, Any], metadata: dict[str, Any]) -> None:
        from IPython.display import display

        publisher = _publisher()
        parent = getattr(publisher, "parent_header", None) if publisher is not None else None
        self._parent = dict(parent) if isinstance(parent, dict) and parent else None
        display(data, metadata=metadata, raw=True, display_id=self.display_id)
        self.shown = True

    def update(self, data: dict[str, Any], metadata: dict[str, Any]) -> None:
        """Replace every output shown with this display_id; nothing when never shown."""
        if not self.shown:
            return
        try:
            if not self._send_under_parent(data, metadata):
                from IPython.display import update_display

                update_display(data, metadata=metadata, raw=True, display_id=self.display_id)
        except Exception:  # the live widget goes on; only the saved copy is not refreshed
            log.exception("shard widget: refreshing the transcript snapshot failed")

    def _send_under_parent(self, data: dict[str, Any], metadata: dict[str, Any]) -> bool:
        publisher = _publisher()
        session = getattr(publisher, "session", None)
        socket = getattr(publisher, "pub_socket", None)
        if self._parent is None or session is None or socket is None:
            return False
        content = {"data": data, "metadata": metadata, "transient": {"display_id": self.display_id}}
        topic = getattr(publisher, "topic", None)
        session.send(socket, "update_display_data", content, parent=self._parent, ident=topic)
        return True


def _publisher() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    if not InteractiveShell.initialized():
        return None
    return InteractiveShell.instance().display_pub
