"""Kernel activity of agent kernels, noted from the IOPub subscription their WebSockets share.

jupyter_server's kernel manager opens one more IOPub subscription per kernel only to note
activity (`last_activity`, `execution_state`, what `/api/kernels` and the idle culler read). Its
callback checks the signature and deserializes every message (dates parsed), a status message
twice: ~0.25 ms of the server's time per message here, which a no-op prompt's execute_reply
waited behind (its `busy` and `execute_input` arrive first), and a second ZMQ receive of every
event a streaming agent sends. For agent kernels the same bookkeeping rides on the shared
subscription (fanout.py) and reads only the two headers (and a status message's content). The
signature is not checked here, as the v1 WebSocket relay does not check it either: these
messages come straight from the kernel's own IOPub socket and only set two fields.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from shard_kernel.gateway.fanout import DELIMITER, SharedIopub
from shard_kernel.kernelspec import KERNEL_NAME

try:  # as in client.py: jupyter_client's own fast path when it is installed
    from orjson import loads
except ImportError:  # pragma: no cover
    loads = json.loads


def watch_agents_on_shared_iopub(kernel_manager: Any) -> None:
    """Agent kernels' activity comes from the shared subscription; other kernels' as before.

    `stop_watching_activity` needs no change: it closes `kernel._activity_stream`, here the
    activity's view of the shared subscription."""
    upstream = kernel_manager.start_watching_activity

    def start_watching_activity(kernel_id: str) -> None:
        kernel = kernel_manager.get_kernel(kernel_id)
        if getattr(kernel, "kernel_name", None) != KERNEL_NAME:
            upstream(kernel_id)
            return
        kernel.reason = ""
        kernel.last_activity = datetime.now(UTC)
        view = SharedIopub.view(kernel_id, kernel)
        view.on_recv(ActivityRecorder(kernel_manager, kernel))
        kernel._activity_stream = view

    kernel_manager.start_watching_activity = start_watching_activity


class ActivityRecorder:
    """jupyter_server's `record_activity` for one kernel, reading only what it needs."""

    def __init__(self, kernel_manager: Any, kernel: Any) -> None:
        self.km = kernel_manager
        self.kernel = kernel

    def __call__(self, msg_list: list[bytes]) -> None:
        try:
            at = msg_list.index(DELIMITER)
            msg_type = loads(msg_list[at + 2])["msg_type"]
            parent_type = (loads(msg_list[at + 3]) or {}).get("msg_type")
        except (ValueError, IndexError, KeyError, TypeError):
            return  # not a kernel message: nothing to note
        km, kernel = self.km, self.kernel
        tracked = km.track_message_type(parent_type)
        if km.track_message_type(msg_type) or tracked or kernel.execution_state == "busy":
            km.last_kernel_activity = kernel.last_activity = datetime.now(UTC)
        if msg_type != "status":
            return
        try:
            state = loads(msg_list[at + 5])["execution_state"]
        except (ValueError, IndexError, KeyError, TypeError):
            return
        if tracked:
            kernel.execution_state = state
        elif kernel.execution_state == "starting" and state != "starting":
            kernel.execution_state = "idle"  # as jupyter_server normalises after starting
