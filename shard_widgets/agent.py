"""AgentWidget: one agent's transcript, permission and ui dialogs, mode, status and usage.

The host (the SDK in-process, or a kernel client) feeds it protocol events with `push`; what a
person does in the browser comes back as protocol commands, validated here and handed to the
`controller`. Its display also carries a static snapshot of the transcript (Shard's render MIME
and a text summary, `_snapshot.py`), refreshed in place when a turn ends, so a notebook saved
after the turn keeps the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import traitlets
from pydantic import BaseModel

from shard_core.protocol import (
    AbortCommand,
    Command,
    PermissionResponseCommand,
    PromptCommand,
    SetModeCommand,
    SnapshotReply,
    SteerCommand,
    UiResponseCommand,
)
from shard_core.protocol.commands import ListCommandsCommand, RewindCommand, SlashCommand
from shard_widgets import _bundle
from shard_widgets._base import ShardWidget
from shard_widgets._composer import (
    WIDGET_MESSAGES,
    WIDGET_TYPES,
    HostNotebook,
    MentionOptionsRequest,
    NotebookCellsMessage,
    mention_options,
    send_composed,
)
from shard_widgets._controller import AgentController, ControllerResult
from shard_widgets._display import SnapshotDisplay
from shard_widgets._messages import MessageError, parse, parse_command
from shard_widgets._snapshot import snapshot_bundle
from shard_widgets._transcript import DEFAULT_MAX_EVENTS, EventDict, Transcript, normalize

DEFAULT_MODES = ("build", "plan")
TRAIT_ONLY = frozenset({"status", "usage"})
_BUSY = frozenset({"streaming", "running_tool", "waiting_for_permission"})
"""the statuses of an agent in a turn"""
"""Event types kept only as the latest value in their traits, not in the transcript."""


class AgentWidget(ShardWidget):
    _esm = _bundle.esm("agent-widget.js")

    events = traitlets.List(
        help="the transcript: event dicts by seq, bounded, no status/usage"
    ).tag(sync=True)
    pending = traitlets.List(help="open permission_request events").tag(sync=True)
    pending_ui = traitlets.List(help="open ui_request events").tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)
    mode = traitlets.Unicode("").tag(sync=True)
    modes = traitlets.List(traitlets.Unicode(), default_value=list(DEFAULT_MODES)).tag(sync=True)
    model = traitlets.Unicode("").tag(sync=True)
    demo = traitlets.Bool(False).tag(sync=True)
    diagnostics = traitlets.List(
        traitlets.Unicode(), help="what the agent left out at start (the status' diagnostics)"
    ).tag(sync=True)
    usage = traitlets.Dict(help="the latest usage event's figures").tag(sync=True)
    goal = traitlets.Unicode("", help="the session's active goal (the status' goal)").tag(sync=True)
    todos = traitlets.List(help="the agent's todo list (the status' todos)").tag(sync=True)

    def __init__(
        self,
        controller: AgentController | None = None,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
        **kwargs: Any,
    ) -> None:
        self._max_events = max_events  # read by the events validator during super().__init__
        super().__init__(**kwargs)
        self.controller = controller
        self._transcript = Transcript(self.events, max_events)
        self._latest_seq: dict[str, int] = {}
        self._display = SnapshotDisplay(f"shard-agent-{self.model_id}")
        self._turn_ended = False
        self._superseded = False
        self._snapshot_kept = False
        self._notebook: HostNotebook | None = None
        """the cells the page sent for the next prompt's or steer's `@cell:` mentions"""

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The live widget's view, plus the transcript as static data (see `_snapshot.py`)."""
        bundle: Any = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        return {**data, **snapshot_bundle(self.events, self.snapshot_state())}, dict(metadata)

    def _ipython_display_(self) -> None:
        """`display(widget)`: published with a display_id, so each turn's end refreshes it."""
        self._display.show(*self._repr_mimebundle_())

    def snapshot_state(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "mode": self.mode,
            "model": self.model,
            "demo": self.demo,
            "usage": dict(self.usage),
        }

    def refresh_snapshot(self) -> None:
        """Send the current snapshot to every output this widget was displayed in (not once
        it is kept: see `supersede`)."""
        if not self._snapshot_kept:
            self._display.update(*self._repr_mimebundle_())

    @property
    def snapshot_kept(self) -> bool:
        """Whether this output's saved transcript stays as it is (`supersede`)."""
        return self._snapshot_kept

    def supersede(self) -> None:
        """A newer view of the same agent was displayed (the next `%%shard` cell): the live
        view goes on showing everything, but this output's saved transcript stays as it is from
        the end of the turn now running (at once when none runs), so a saved notebook holds
        each turn once, in the cell that ran it (a `%shard new` cell kept every later turn)."""
        self._superseded = True
        if self.status not in _BUSY:
            self._snapshot_kept = True

    # ------------------------------------------------------------------ events in
    def push(self, event: BaseModel | EventDict) -> None:
        """Adds one event; a `message_delta` extends the streaming text it continues."""
        self.push_many([event])

    def push_many(self, events: Sequence[BaseModel | EventDict]) -> None:
        fresh = [e for e in map(normalize, events) if e is not None]
        if not fresh:
            return
        ops = self._transcript.extend([e for e in fresh if e["type"] not in TRAIT_ONLY])
        # Traits first: a permission item that reaches the browser before its request is in
        # `pending` is drawn closed ("No longer pending") and the view never reopens it.
        with self.hold_sync():
            for event in fresh:
                if event["type"] in TRAIT_ONLY:
                    self._apply_latest(event)
            for event in ops.accepted:
                self._track(event)
        if ops.reset:
            self.send_state("events")  # changed in place, so traitlets saw nothing
        for message in ops.messages(self._transcript.max_events):
            self.send(message)
        # At a turn's end, and again at the status that follows it (the agent is idle then).
        if any(e["type"] == "turn_end" for e in ops.accepted):
            self._turn_ended = True
            self.refresh_snapshot()
            if any(e["type"] == "status" for e in fresh):  # the idle came with it
                self._snapshot_kept = self._superseded
        elif self._turn_ended and any(e["type"] == "status" for e in fresh):
            self._turn_ended = False
            self.refresh_snapshot()
            self._snapshot_kept = self._superseded

    def apply_snapshot(self, snapshot: SnapshotReply | dict[str, Any]) -> None:
        """A page of events from an attach or sync answer, then its state (which wins)."""
        snap = (
            snapshot
            if isinstance(snapshot, SnapshotReply)
            else SnapshotReply.model_validate(snapshot)
        )
        self.push_many(snap.events)
        with self.hold_sync():
            self.status, self.mode, self.model = snap.status, snap.mode, snap.model
            self.pending = [p.model_dump(mode="json") for p in snap.pending_permissions]
            self.pending_ui = [p.model_dump(mode="json") for p in snap.pending_ui]

    def clear(self) -> None:
        self.events = []
        self.pending, self.pending_ui = [], []

    @traitlets.validate("events")
    def _validate_events(self, proposal: dict[str, Any]) -> list[EventDict]:
        # Every assignment (even of an equal list) stores a new object: rebind the transcript.
        events = sorted(
            (e for e in map(normalize, proposal["value"]) if e and e["type"] not in TRAIT_ONLY),
            key=lambda e: int(e["seq"]),
        )[-getattr(self, "_max_events", DEFAULT_MAX_EVENTS) :]
        transcript: Transcript | None = getattr(self, "_transcript", None)
        if transcript is not None:
            transcript.rebind(events)
        return events

    def _apply_latest(self, event: EventDict) -> None:
        # status and usage replace each other: a replayed older one must not win
        if event["seq"] <= self._latest_seq.get(event["type"], -1):
            return
        self._latest_seq[event["type"]] = event["seq"]
        if event["type"] == "status":
            self.status, self.mode, self.model = event["status"], event["mode"], event["model"]
            self.demo = event["demo"]
            self.diagnostics = [str(d) for d in event.get("diagnostics") or []]
            self.goal = str(event.get("goal") or "")
            self.todos = list(event.get("todos") or [])
        else:
            self.usage = {
                k: v for k, v in event.items() if k not in ("type", "agent_id", "seq", "ts")
            }

    def _track(self, event: EventDict) -> None:
        kind = event["type"]
        if kind == "permission_request":
            self.pending = [*_without(self.pending, event["request_id"]), event]
        elif kind == "permission_resolved":
            self.pending = _without(self.pending, event["request_id"])
        elif kind == "ui_request" and event["ui"] != "notify":
            self.pending_ui = [*_without(self.pending_ui, event["request_id"]), event]
        elif kind == "ui_resolved":
            self.pending_ui = _without(self.pending_ui, event["request_id"])
        elif kind == "restarted":
            self.pending, self.pending_ui = [], []  # the old process's questions died with it

    # ------------------------------------------------------------------ commands out
    def _handle(self, content: dict[str, Any]) -> tuple[str, str | None, ControllerResult]:
        command = (
            parse(WIDGET_MESSAGES, content)
            if content.get("type") in WIDGET_TYPES
            else parse_command(content)
        )
        if self.controller is None:
            raise MessageError(
                "no agent is attached to this widget", command=command.type, command_id=command.id
            )
        if isinstance(command, NotebookCellsMessage):  # for the next prompt or steer only
            self._notebook = command.notebook
            return command.type, command.id, None
        if isinstance(command, MentionOptionsRequest):
            return command.type, command.id, mention_options(self.controller, command)
        if isinstance(command, PromptCommand | SteerCommand):  # the composer
            notebook, self._notebook = self._notebook, None
            return command.type, command.id, send_composed(self.controller, command, notebook)
        return command.type, command.id, self._dispatch(self.controller, command)

    @staticmethod
    def _dispatch(controller: AgentController, command: Command) -> ControllerResult:
        # A label goes along only when the browser gave one: a controller written before labels
        # existed keeps working for every answer without one.
        labelled: dict[str, str] = {}
        if isinstance(command, PermissionResponseCommand | UiResponseCommand) and command.label:
            labelled["label"] = command.label
        match command:
            case PermissionResponseCommand():
                return controller.respond_permission(
                    command.request_id,
                    command.decision,
                    client_id=command.client_id,
                    rule=command.rule,
                    reason=command.reason,
                    **labelled,
                )
            case UiResponseCommand():
                return controller.respond_ui(
                    command.request_id, command.value, client_id=command.client_id, **labelled
                )
            case AbortCommand():
                return controller.abort()
            case SteerCommand() | PromptCommand():
                return send_composed(controller, command)
            case SetModeCommand():
                return controller.set_mode(command.mode)
            case SlashCommand() | ListCommandsCommand():
                return _commands(controller, command)
            case RewindCommand() if callable(getattr(controller, "rewind", None)):
                return _rewind(controller, command)  # "Rewind to here" and "Changes"
            case _:
                raise MessageError(
                    f"{command.type} is not sent through this widget",
                    command=command.type,
                    command_id=command.id,
                )


def _commands(controller: AgentController, command: SlashCommand | ListCommandsCommand) -> Any:
    """`/` commands go to a controller that takes them (`run_command`, `list_commands`: the
    SDK's and the gateway client's do); with another the widget says so."""
    if isinstance(command, SlashCommand):
        run = getattr(controller, "run_command", None)
        if callable(run):
            return run(command.text, client_id=command.client_id, label=command.label)
    else:
        listing = getattr(controller, "list_commands", None)
        if callable(listing):
            return listing()
    raise MessageError(
        f"{command.type}: this agent takes no / commands through its widget",
        command=command.type,
        command_id=command.id,
    )


def _rewind(controller: AgentController, command: RewindCommand) -> Any:
    return controller.rewind(command)  # pyright: ignore[reportAttributeAccessIssue]


def _without(requests: list[EventDict], request_id: str) -> list[EventDict]:
    return [r for r in requests if r.get("request_id") != request_id]
