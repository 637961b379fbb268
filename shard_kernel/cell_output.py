"""CellOutput: the part of an agent's events that stays in the notebook, as Jupyter outputs.

Assistant text streams into one markdown display (display_id + update_display_data, at most
every `interval` seconds); a tool call shows as a running card the moment it starts, updated with
the tool's progress (`tool_update`) and replaced in place by its result; each permission prompt
and decision is a display_data with Shard's MIME type plus text fallbacks, so a saved notebook
shows what happened: once decided, the prompt's own output is updated in place to carry the
decision (`resolution`), so a notebook reopened without a kernel shows it answered, by whom, how.

Every client sees the whole text, those that update displays and those that do not (`jupyter
console` prints each display_data once and ignores update_display_data). The live text display
starts with an empty text/plain (so such a client prints no first chunk) and, once its message is
complete, hands over: the live display is emptied (an update, which only updating clients
apply) and the finished text arrives as a new display_data, right where the live one was. A tool
card whose result replaced it in place hands over the same way when the next output comes (or the
cell ends), if nothing was shown below it meanwhile; under a permission prompt the card keeps its
place and a non-updating client sees "running …" and the prompt's lines, not the result.

A client that fails on update_display_data (euporie 2.10's console: its output handler raises
on one and stops reading IOPub, so nothing after the first chunk shows) is given a kernel with
`KERNEL_SHARD_OUTPUT=plain`: then no update is sent at all, no live text display, and each tool
result is an output of its own below its "running …" line.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Mapping
from typing import Any

from shard_core.protocol.events import (
    Event,
    GoalUpdateEvent,
    HookRunEvent,
    MessageCompleteEvent,
    MessageDeltaEvent,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
    TurnEndEvent,
    UiRequestEvent,
    UiResolvedEvent,
)
from shard_core.protocol.mime import PERMISSION_MIME, RENDER_MIME, render_payload
from shard_core.types import KvDescriptor, KvPair, StatusDescriptor, TextDescriptor
from shard_core.types.errors import ConfigError
from shard_kernel.agent_env import PREFIX
from shard_kernel.terminal.render import (
    TerminalRenderer,
    format_usage,
    goal_line,
    hook_run_text,
    hook_tone,
    question_text,
    resolved_text,
)

__all__ = [
    "OUTPUT_VARIABLE",
    "PERMISSION_MIME",
    "RENDER_MIME",
    "CellOutput",
    "display_updates",
    "permission_bundle",
    "permission_display_id",
]

Send = Callable[[str, dict[str, Any]], None]
OUTPUT_VARIABLE = PREFIX + "OUTPUT"
OUTPUT_CHOICES = ("live", "plain")


def display_updates(env: Mapping[str, str]) -> bool:
    """Whether a cell's outputs may be updated in place: `KERNEL_SHARD_OUTPUT` live (the
    default) or plain (display_data only, for a client that fails on update_display_data)."""
    chosen = env.get(OUTPUT_VARIABLE, "").strip().lower() or "live"
    if chosen not in OUTPUT_CHOICES:
        raise ConfigError(
            f"{OUTPUT_VARIABLE}={chosen!r}; use live (outputs updated in place) or plain"
            " (each output sent once, for a client that cannot update one)"
        )
    return chosen == "live"


class CellOutput:
    """One cell's outputs. `send(msg_type, content)` publishes on IOPub under the cell."""

    def __init__(self, send: Send, interval: float = 0.05, *, updates: bool = True) -> None:
        self._updates = updates
        self._send = send if updates else _without_updates(send)
        self._interval = interval
        self._text = ""
        self._display_id: str | None = None
        self._flushed_at = 0.0
        self._plain = TerminalRenderer(io.StringIO(), color=False)
        self._cards: dict[str, dict[str, Any]] = {}
        """call id → its running card's `tool_call` event (wire JSON)"""
        self._last: str | None = None
        """the display id of the newest output, while it is one a later message may update"""
        self._handover: tuple[str, dict[str, Any]] | None = None
        """the newest output's display id and final data, which a non-updating client missed"""
        self._questions: set[str] = set()
        """ask_user questions this cell showed, until answered"""
        self._asked: dict[str, PermissionRequestEvent] = {}
        """request id → the prompt this cell showed, until it is decided"""

    @property
    def updates(self) -> bool:
        """Whether this cell's outputs may be updated in place (not `KERNEL_SHARD_OUTPUT=plain`)."""
        return self._updates

    def handle(self, event: Event) -> None:
        if isinstance(event, MessageDeltaEvent):
            if event.channel == "text":
                self._text += event.delta
                if time.monotonic() - self._flushed_at >= self._interval:
                    self._flush_text()
        elif isinstance(event, MessageCompleteEvent):
            self._text = event.message.text
            self._finish_text()
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
        else:
            self._notice(event)

    def finish(self) -> None:
        """The cell ends (the turn ended, failed or was stopped): what is shown only live lands."""
        self._finish_text()
        self._hand_over()

    def _text_data(self) -> dict[str, Any]:
        # Never text/markdown: Lab renders a live output's markdown as trusted HTML, so a model
        # echoing tool output could run script. Shard's renderer draws the markdown as DOM.
        descriptor = TextDescriptor(text=self._text, format="markdown")
        return {RENDER_MIME: render_payload([descriptor]), "text/plain": self._text}

    def _flush_text(self) -> None:
        """The live text display: a first display_data, then updates (at most every interval)."""
        if not self._text or not self._updates:
            return
        data = self._text_data()
        if self._display_id is None:
            # an empty text/plain for now: a client that prints display_data once would keep
            # the first chunk
            data["text/plain"] = ""
            self._display_id = f"shard-text-{time.monotonic_ns()}"
            self._new_output(data, self._display_id)
        else:
            transient = {"display_id": self._display_id}
            self._send(
                "update_display_data", {"data": data, "metadata": {}, "transient": transient}
            )
        self._flushed_at = time.monotonic()

    def _finish_text(self) -> None:
        """The finished text as a new output every client shows; the live display, emptied."""
        if self._text:
            if self._display_id is not None:
                self._empty(self._display_id)
            self._new_output(self._text_data())
        self._text, self._display_id = "", None

    def _empty(self, display_id: str) -> None:
        """An update only updating clients apply: they drop the live output for its successor.

        An empty Shard payload and an empty text, not `data: {}`: euporie 2.10 fails on an
        output without a MIME type, and Lab with Shard's renderer draws this as nothing."""
        data = {RENDER_MIME: render_payload([]), "text/plain": ""}
        transient = {"display_id": display_id}
        self._send("update_display_data", {"data": data, "metadata": {}, "transient": transient})

    def _new_output(self, data: dict[str, Any], display_id: str | None = None) -> None:
        """A new output below the others; a tool card waiting to hand over does so first."""
        self._hand_over()
        transient = {} if display_id is None else {"display_id": display_id}
        self._send("display_data", {"data": data, "metadata": {}, "transient": transient})
        self._last = display_id

    def _hand_over(self) -> None:
        if self._handover is None:
            return
        display_id, data = self._handover
        self._handover = self._last = None
        self._empty(display_id)
        self._send("display_data", {"data": data, "metadata": {}, "transient": {}})

    def _display(self, data: dict[str, Any]) -> None:
        self._new_output(data)

    def _question(self, event: UiRequestEvent) -> None:
        """An ask_user question as text (the widget and Lab answer it; any client may)."""
        self._finish_text()
        self._questions.add(event.request_id)
        text = question_text(event)
        descriptor = TextDescriptor(text=text)
        self._new_output({RENDER_MIME: render_payload([descriptor]), "text/plain": text})

    def _answered(self, event: UiResolvedEvent) -> None:
        self._questions.discard(event.request_id)
        value = event.value
        said = ", ".join(value) if isinstance(value, list) else "no answer"
        line = f"Answered by {event.decided_by}: {said}"
        descriptor = StatusDescriptor(label=line, tone="success" if value else "warn")
        self._new_output({RENDER_MIME: render_payload([descriptor]), "text/plain": line})

    def _goal(self, event: GoalUpdateEvent) -> None:
        """A goal change (goal.continue going on or stopping included) as a status line."""
        self._finish_text()
        line = goal_line(event)
        tone = "warn" if event.action == "stopped" else "info"
        descriptor = StatusDescriptor(label=line, tone=tone)
        self._new_output({RENDER_MIME: render_payload([descriptor]), "text/plain": line})

    def _tool_call(self, event: ToolCallEvent) -> None:
        """The card appears when the call starts ("running bash · 0:03"), before any ask."""
        self._finish_text()  # text after the call is a new display
        call = event.model_dump(mode="json")
        data = {
            RENDER_MIME: render_payload([], event=call),
            "text/plain": f"running {event.call.name}…",
        }
        self._new_output(data, tool_display_id(event.call.id))
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
        display_id = tool_display_id(event.tool_call_id)
        if event.tool_call_id not in self._cards or not self._updates:
            # a result with no card of its own (a call aborted before it started), or for a
            # client that cannot update one: a new output
            self._new_output(data, display_id)
            return
        # the running card is replaced in place; a client that cannot update gets the result
        # when the next output comes, if the card is still the newest output
        transient = {"display_id": display_id}
        self._send("update_display_data", {"data": data, "metadata": {}, "transient": transient})
        if self._last == display_id:
            self._handover = (display_id, data)

    def _permission(self, event: PermissionRequestEvent) -> None:
        self._asked[event.request_id] = event
        self._new_output(permission_bundle(event), permission_display_id(event.request_id))

    def _resolved(self, event: PermissionResolvedEvent) -> None:
        label = resolved_text(event)
        if event.reason:
            label += f": {event.reason}"
        asked = self._asked.pop(event.request_id, None)
        if asked is not None:  # the prompt's output keeps its answer (and drops a live dialog)
            transient = {"display_id": permission_display_id(event.request_id)}
            data = permission_bundle(asked, event)
            self._send(
                "update_display_data", {"data": data, "metadata": {}, "transient": transient}
            )
        tone = "error" if event.decision == "deny" else "success"
        descriptor = StatusDescriptor(label=label, tone=tone)
        self._display(
            {
                # `event`: a client that shows the answer in the prompt itself may fold this line
                RENDER_MIME: render_payload([descriptor], event=event.model_dump(mode="json")),
                "text/plain": label,
            }
        )

    def _notice(self, event: Event) -> None:
        """A line about the agent, not the conversation: a goal's change, a hook's run, an
        ask_user question and its answer."""
        if isinstance(event, GoalUpdateEvent):
            self._goal(event)
        elif isinstance(event, HookRunEvent):
            self._hook_run(event)
        elif isinstance(event, UiRequestEvent) and event.ui == "question":
            self._question(event)
        elif isinstance(event, UiResolvedEvent) and event.request_id in self._questions:
            self._answered(event)

    def _hook_run(self, event: HookRunEvent) -> None:
        """A small card: which hook ran for which event, how it ended, what it decided."""
        self._finish_text()
        text = hook_run_text(event.run)
        descriptor = StatusDescriptor(label=text, tone=hook_tone(event.run))
        payload = render_payload([descriptor], event=event.model_dump(mode="json"))
        self._display({RENDER_MIME: payload, "text/plain": text})

    def _usage(self, event: TurnEndEvent) -> None:
        self._finish_text()
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


def _without_updates(send: Send) -> Send:
    """`send`, except that update_display_data is never sent."""

    def sending(msg_type: str, content: dict[str, Any]) -> None:
        if msg_type != "update_display_data":
            send(msg_type, content)

    return sending


def tool_display_id(tool_call_id: str) -> str:
    return f"shard-tool-{tool_call_id}"


def permission_display_id(request_id: str) -> str:
    """The prompt's output; the kernel-hosted dialog replaces it in place (one output, not two)."""
    return f"shard-permission-{request_id}"


def permission_bundle(
    event: PermissionRequestEvent, resolution: PermissionResolvedEvent | None = None
) -> dict[str, Any]:
    """The prompt as data any front end can show: Shard's MIME type and a text fallback; once
    decided, with the decision (`resolution`, a permission_resolved event) beside the request."""
    data = event.model_dump(mode="json")
    if resolution is None:
        text = (
            f"Permission needed: {event.prompt}\n"
            f"Answer in a Shard client (the agent panel or the dialog widget); "
            f"without an answer the agent's headless policy decides."
        )
    else:
        data["resolution"] = resolution.model_dump(mode="json")
        text = f"Permission needed: {event.prompt}\n{resolved_text(resolution)}"
    return {PERMISSION_MIME: data, "text/plain": text}
