"""Permission events: `permission_request` when the gate asks, `permission_resolved` when decided.

Every client sees both, so any of them can answer and all of them can dismiss their dialog.
A failing subscriber is logged and ignored: an event is news, never a decision.
"""

from __future__ import annotations

import logging
from typing import Literal

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.engine.events import EventStream
from shard_core.protocol.events import PermissionRequestEvent, PermissionResolvedEvent
from shard_core.types import PermissionDetails

__all__ = ["announce_request", "announce_resolved"]

_log = logging.getLogger(__name__)


def announce_request(events: EventStream | None, prompt: PermissionPrompt) -> None:
    if events is None:
        return
    try:
        events.emit(
            PermissionRequestEvent,
            request_id=prompt.request_id,
            tool=prompt.tool,
            input=prompt.input,
            prompt=prompt.prompt,
            suggested_rule=prompt.suggested_rule,
            read_only=prompt.read_only,
            tool_call_id=prompt.tool_call_id,
            turn_id=prompt.turn_id,
            preview=list(prompt.preview),
        )
    except Exception:  # a broken subscriber must not decide a permission
        _log.exception("emitting permission_request %s failed", prompt.request_id)


def announce_resolved(
    events: EventStream | None,
    request_id: str,
    decided: PermissionDetails | PermissionAnswer | None,
    tool_call_id: str | None = None,
) -> None:
    if events is None or decided is None:
        return
    if isinstance(decided, PermissionDetails):
        tool_call_id = decided.tool_call_id or tool_call_id
        scope = decided.scope
    else:
        scope = _scope(decided.scope) if decided.decision == "allow_always" else None
    try:
        events.emit(
            PermissionResolvedEvent,
            request_id=request_id,
            decision=decided.decision,
            decided_by=decided.decided_by or "unknown",
            source=decided.source,
            reason=decided.reason,
            rule=decided.rule,
            client_id=decided.client_id,
            tool_call_id=tool_call_id,
            scope=scope,
        )
    except Exception:
        _log.exception("emitting permission_resolved %s failed", request_id)


def _scope(scope: str) -> Literal["agent", "workspace"]:
    return "workspace" if scope == "workspace" else "agent"
