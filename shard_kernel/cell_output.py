"""CellOutput: the part of an agent's events that stays in the notebook, as Jupyter outputs.

Assistant text streams into one markdown display (display_id + update_display_data, at most
every `interval` seconds); a tool call shows as a running card the moment it starts, updated with
the tool's progress (`tool_update`) and replaced in place by its result; each permission prompt
and decision is a display_data with Shard's MIME type plus text fallbacks, so a saved notebook
shows what happened.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from shard_core.protocol.events import (
    Event,
    MessageCompleteEvent,
    MessageDeltaEvent,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
    TurnEndEvent,
)
from shard_core.protocol.mime import PERMISSION_MIME, RENDER_MIME, render_payload
from shard_core.types import KvDescriptor, KvPair, StatusDescriptor, TextDescriptor
from shard_kernel.terminal.render import TerminalRenderer, format_usage, resolved_text

__all__ = [
    "PERMISSION_MIME",
    "RENDER_MIME",
    "CellOutput",
    "permission_bundle",
    "permission_display_id",
]

Send = Callable[[str, dict[str, Any]], None]


class CellOutput:
    """One cell's outputs. `send(msg_type, content)` publishes on IOPub under the cell."""

    def __init__(self, send: Send, interval: float = 0.05) -> None:
        self._send = send
        self._interval = interval
        self._text = ""
        self._display_id: str | None = None
        self._flushed_at = 0.0
        self._plain = TerminalRenderer(io.StringIO(), color=False)
        self._cards: dict[str, dict[str, Any]] = {}
        """call id → its running card's `tool_call` event (wire JSON)"""

    def handle(self, event: Event) -> None:
        if isinstance(event, MessageDeltaEvent):
            if event.channel == "text":
                self._text += event.delta
                if time.monotonic() - self._flushed_at >= self._interval:
                    self._flush_text()
        elif isinstance(event, MessageCompleteEvent):
            self._text = event.message.text
            self._flush_text()
            self._text, self._display_id = "", None
        elif isinstance(event, ToolCallEvent):
            self._tool_call(event)
        elif isinstance(event, ToolUpdateEvent):
            self._tool_update(event)
        elif isinstance(event, ToolResultEvent):
            self._tool_result(event)
        elif isinstance(event, PermissionRequestEvent):
            self._permission(event)
        elif isinstance(event, PermissionResolvedEvent):
            self._resolved(event)
        elif isinstance(event, TurnEndEvent):
            self._usage(event)

    def _flush_text(self) -> None:
        if not self._text:
            return
        # Never text/markdown: Lab renders a live output's markdown as trusted HTML, so a model
        # echoing tool output could run script. Shard's renderer draws the markdown as DOM.
        descriptor = TextDescriptor(text=self._text, format="markdown")
        data = {
            RENDER_MIME: render_payload([descriptor]),
            "text/plain": self._text,
        }
        if self._display_id is None:
            self._display_id = f"shard-text-{time.monotonic_ns()}"
            kind = "display_data"
        else:
            kind = "update_display_data"
        self._send(
            kind, {"data": data, "metadata": {}, "transient": {"display_id": self._display_id}}
        )
        self._flushed_at = time.monotonic()

    def _display(self, data: dict[str, Any]) -> None:
        self._send("display_data", {"data": data, "metadata": {}, "transient": {}})

    def _tool_call(self, event: ToolCallEvent) -> None:
        """The card appears when the call starts ("running bash · 0:03"), before any ask."""
        self._flush_text()
        self._text, self._display_id = "", None  # text after the call is a new display
        call = event.model_dump(mode="json")
        data = {
            RENDER_MIME: render_payload([], event=call),
            "text/plain": f"running {event.call.name}…",
        }
        transient = {"display_id": tool_display_id(event.call.id)}
        self._send("display_data", {"data": data, "metadata": {}, "transient": transient})
        self._cards[event.call.id] = call

    def _tool_update(self, event: ToolUpdateEvent) -> None:
        """The running card shows the tool's latest partial state (the engine throttles these),
        until the result replaces it."""
        call = self._cards.get(event.tool_call_id)
        if call is None:
            return
        lines = event.partial.text.splitlines()
        plain = f"running {event.name}…" + (f"\n{lines[-1]}" if lines else "")
        payload = render_payload(
            event.partial.render, event=call, update=event.model_dump(mode="json")
        )
        transient = {"display_id": tool_display_id(event.tool_call_id)}
        content = {"data": {RENDER_MIME: payload, "text/plain": plain}, "transient": transient}
        self._send("update_display_data", {**content, "metadata": {}})

    def _tool_result(self, event: ToolResultEvent) -> None:
        plain = self._plain.result_text(event)
        data = {
            RENDER_MIME: render_payload(event.result.render, event=event.model_dump(mode="json")),
            "text/plain": plain,
        }
        transient = {"display_id": tool_display_id(event.tool_call_id)}
        # the running card is replaced in place; a result with no card of its own (a call
        # aborted before it started) gets a new output
        kind = "update_display_data" if event.tool_call_id in self._cards else "display_data"
        self._send(kind, {"data": data, "metadata": {}, "transient": transient})

    def _permission(self, event: PermissionRequestEvent) -> None:
        transient = {"display_id": permission_display_id(event.request_id)}
        content = {"data": permission_bundle(event), "metadata": {}, "transient": transient}
        self._send("display_data", content)

    def _resolved(self, event: PermissionResolvedEvent) -> None:
        label = resolved_text(event)
        if event.reason:
            label += f": {event.reason}"
        tone = "error" if event.decision == "deny" else "success"
        descriptor = StatusDescriptor(label=label, tone=tone)
        self._display(
            {
                RENDER_MIME: render_payload([descriptor]),
                "text/plain": label,
            }
        )

    def _usage(self, event: TurnEndEvent) -> None:
        self._flush_text()
        line = f"{event.reason} · {format_usage(event.usage)}"
        descriptor = KvDescriptor(
            pairs=[KvPair(k="turn", v=event.reason), KvPair(k="usage", v=format_usage(event.usage))]
        )
        self._display(
            {
                RENDER_MIME: render_payload([descriptor]),
                "text/plain": line,
            }
        )


def tool_display_id(tool_call_id: str) -> str:
    return f"shard-tool-{tool_call_id}"


def permission_display_id(request_id: str) -> str:
    """The prompt's output; the kernel-hosted dialog replaces it in place (one output, not two)."""
    return f"shard-permission-{request_id}"


def permission_bundle(event: PermissionRequestEvent) -> dict[str, Any]:
    """The prompt as data any front end can show: Shard's MIME type and a text fallback."""
    text = (
        f"Permission needed: {event.prompt}\n"
        f"Answer in a Shard client (the agent panel or the dialog widget); "
        f"without an answer the agent's headless policy decides."
    )
    return {PERMISSION_MIME: event.model_dump(mode="json"), "text/plain": text}
