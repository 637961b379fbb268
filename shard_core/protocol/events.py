"""Per-agent events: everything an agent tells its clients, each with agent_id, seq and ts.

`seq` is monotonic per agent across restarts (it continues from the log), so a client that sees
seq jump from 41 to 44 knows it missed 42 and 43 and asks for them with a `sync` command.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types import (
    AssistantMessage,
    ContextKind,
    HookRunCheckpoint,
    JsonObject,
    RenderDescriptor,
    TodoItem,
    ToolCallBlock,
    ToolResult,
    Usage,
    WireModel,
)
from shard_core.types.content import ResultContent, ToolKind

AgentStatus = Literal["idle", "streaming", "running_tool", "waiting_for_permission", "error"]
TurnEndReason = Literal["completed", "aborted", "error", "max_steps", "hook_stopped"]


class _Event(WireModel):
    agent_id: str
    seq: int = Field(ge=0)
    ts: float


class MessageDeltaEvent(_Event):
    type: Literal["message_delta"] = "message_delta"
    turn_id: str
    channel: Literal["text", "thinking", "tool_call"] = "text"
    delta: str
    tool_call_id: str | None = None


class MessageCompleteEvent(_Event):
    type: Literal["message_complete"] = "message_complete"
    turn_id: str
    entry_id: str
    message: AssistantMessage


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    turn_id: str
    call: ToolCallBlock
    read_only: bool = False
    kind: ToolKind = Field(
        default="other",
        description="what the call does, as its tool declares it (an ACP host's tool kind)",
    )


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    turn_id: str
    tool_call_id: str
    name: str
    entry_id: str
    result: ToolResult


class ToolUpdateEvent(_Event):
    """A running tool's latest partial state: its output so far and/or a progress descriptor.

    Transient, like `message_delta`: never written to the event log (the `tool_result` that
    follows holds the final state) and throttled per call, so a client shows the newest one until
    the result replaces it."""

    type: Literal["tool_update"] = "tool_update"
    turn_id: str
    tool_call_id: str
    name: str
    partial: ToolResult


class PermissionRequestEvent(_Event):
    type: Literal["permission_request"] = "permission_request"
    request_id: str
    tool: str
    input: JsonObject
    prompt: str
    suggested_rule: str | None = Field(default=None, description="what 'always allow' saves")
    read_only: bool = False
    tool_call_id: str | None = None
    turn_id: str | None = None
    preview: list[RenderDescriptor] = Field(
        default_factory=list[RenderDescriptor],
        description="what the call would do, for the person deciding: a diff for edit and "
        "write, the command for bash; empty when the tool offers none",
    )


class PermissionResolvedEvent(_Event):
    type: Literal["permission_resolved"] = "permission_resolved"
    request_id: str
    decision: Literal["allow", "allow_always", "deny"]
    decided_by: str = Field(
        description="the deciding client's label (else its client_id), or the rule, grant, "
        "mode or policy that decided"
    )
    source: Literal["rule", "grant", "mode", "client", "headless", "timeout", "abort"]
    reason: str | None = None
    rule: str | None = None
    client_id: str | None = Field(
        default=None, description="the deciding client's id when a client decided"
    )
    tool_call_id: str | None = Field(default=None, description="the call that was decided")
    scope: Literal["agent", "workspace"] | None = Field(
        default=None,
        description="for allow_always: where the grant was saved (this agent, or every agent "
        "in this workspace folder)",
    )


UiKind = Literal["select", "confirm", "input", "notify", "question"]
UiValue = str | bool | list[str] | None
"""an answer: select and input a string, confirm a bool, question the chosen strings"""


class UiRequestEvent(_Event):
    type: Literal["ui_request"] = "ui_request"
    request_id: str
    ui: UiKind
    title: str
    message: str = ""
    options: list[str] = Field(default_factory=list)
    default: str | None = None
    multi: bool = Field(default=False, description="question: more than one choice may be made")
    allow_other: bool = Field(
        default=False, description="question: an answer of the person's own words is accepted"
    )


class UiResolvedEvent(_Event):
    type: Literal["ui_resolved"] = "ui_resolved"
    request_id: str
    value: UiValue
    decided_by: str = Field(
        description="the answering client's label (else its client_id), or timeout / abort"
    )
    client_id: str | None = Field(
        default=None, description="the answering client's id when a client answered"
    )


class TurnStartEvent(_Event):
    type: Literal["turn_start"] = "turn_start"
    turn_id: str
    prompt: str
    entry_id: str | None = None
    images: list[ResultContent] = Field(
        default_factory=list[ResultContent],
        description=(
            "the images sent with the prompt (pasted, a cell's plots), as the model got them; in"
            " the event log each image's bytes are a blob reference beside it, and an image whose"
            " blob is gone reads back as a text block saying so"
        ),
    )


class TurnEndEvent(_Event):
    type: Literal["turn_end"] = "turn_end"
    turn_id: str
    reason: TurnEndReason
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None


class CompactionEvent(_Event):
    type: Literal["compaction"] = "compaction"
    index: int
    entry_id: str
    tokens_before: int
    tokens_after: int
    entries_folded: int
    reason: Literal["threshold", "overflow", "manual"]
    compactor: str


class UsageEvent(_Event):
    type: Literal["usage"] = "usage"
    turn_id: str | None = None
    request: Usage = Field(default_factory=Usage)
    turn: Usage = Field(default_factory=Usage)
    total: Usage = Field(default_factory=Usage)
    context_tokens: int = 0
    context_window: int = 0


class ClientCounts(WireModel):
    """Clients attached to an agent (comms on target `shard`), by role."""

    interactive: int = Field(default=0, ge=0)
    observer: int = Field(default=0, ge=0)


class StatusEvent(_Event):
    type: Literal["status"] = "status"
    status: AgentStatus
    mode: str
    model: str
    demo: bool = Field(default=False, description="true when the scripted demo provider answers")
    message: str | None = None
    clients: ClientCounts | None = Field(
        default=None, description="attached clients by role, when the agent's host knows them"
    )
    title: str | None = Field(default=None, description="the session's title, once it has one")
    diagnostics: list[str] = Field(
        default_factory=list[str],
        description="what the agent skipped or could not load when it started, one line each "
        "(e.g. a project resource left out without --trust-project), in every status",
    )
    goal: str | None = Field(default=None, description="the session's active goal, if one is set")
    todos: list[TodoItem] | None = Field(
        default=None, description="the agent's todo list (todo_write, or plan mode's plan)"
    )


SteerStatus = Literal["admitted", "rejected", "superseded", "queued"]


class SteerReceiptEvent(_Event):
    """What became of a steer: `admitted` when it was logged into the next provider request
    (`entry_id` is that user message), `rejected` when the turn ended (or none ran) first,
    `superseded` when a newer steer with `replace` took its place, `queued` when the turn ended
    first and the steer asked to wait for the next turn. Every client gets every receipt."""

    type: Literal["steer_receipt"] = "steer_receipt"
    steer_id: str
    status: SteerStatus
    text: str = Field(description="the steer's text, so a client that did not send it can show it")
    images: list[ResultContent] = Field(
        default_factory=list[ResultContent],
        description="the images sent with the steer, as with a turn_start's (blob references in"
        " the event log)",
    )
    reason: str | None = None
    entry_id: str | None = None
    turn_id: str | None = None


class ContextInjectedEvent(_Event):
    """A user-visible context entry (a note, a file, a cell's output) was logged without a
    turn; the next provider request carries it."""

    type: Literal["context_injected"] = "context_injected"
    entry_id: str
    kind: ContextKind
    label: str | None = None
    text: str
    turn_id: str | None = Field(default=None, description="set when it waited for a running turn")


class RestartedEvent(_Event):
    type: Literal["restarted"] = "restarted"
    lost: list[str] = Field(description="live state the previous process had and this one lacks")
    entries: int = Field(ge=0, description="entries reloaded from the log")


class FileMutatedEvent(_Event):
    """A tool changed files in the workspace; sent before that tool's `tool_result`.

    `paths` are the files a write or an edit reported (absolute). After a shell command, whose
    changes nobody lists, `since` is set instead: files whose mtime is at or after it (epoch
    seconds) may have changed, and a subscriber that keeps state about files (the code index)
    re-stats what it knows."""

    type: Literal["file_mutated"] = "file_mutated"
    turn_id: str
    tool_call_id: str
    tool: str
    paths: list[str] = Field(default_factory=list[str])
    since: float | None = None


class RewindEvent(_Event):
    """Files (and/or the conversation) were put back to how they were before an entry.

    Every attached client gets it: a transcript marks the point, an open editor reloads the
    files named in `restored`. `entry_id` is the checkpoint the rewind wrote: rewinding to
    before it undoes the rewind."""

    type: Literal["rewind"] = "rewind"
    entry_id: str
    to_entry_id: str
    scope: Literal["code", "conversation", "both"]
    restored: list[str] = Field(default_factory=list[str], description="workspace paths")
    kept: list[str] = Field(
        default_factory=list[str], description="files a person changed, left as they are"
    )
    failed: list[str] = Field(
        default_factory=list[str], description="'path: why' for what could not be restored"
    )
    leaf_id: str | None = Field(default=None, description="the conversation's leaf after it")
    message: str = ""


class CommandOutputEvent(_Event):
    """A slash command ran (`/status`, an extension's `/words`): its output as markdown, or why
    it failed. Every client shows it in its transcript; `client_id` and `label` name the client
    that ran it (None for a notebook cell)."""

    type: Literal["command_output"] = "command_output"
    command: str = Field(description="the command's name with its slash, e.g. '/status'")
    text: str = Field(description="the whole line as it was typed")
    ok: bool
    markdown: str = Field(description="the output (ok) or the error (not ok), as markdown")
    client_id: str | None = None
    label: str | None = None


GoalBound = Literal["turns", "tokens", "cost", "time"]


class GoalUpdateEvent(_Event):
    """The session's goal changed (set, met, cleared) or `goal.continue` went on or stopped.
    `bound` names the `goal.continue` bound that stopped the agent; `message` says it in words."""

    type: Literal["goal_update"] = "goal_update"
    text: str | None = Field(description="the goal, verbatim; None when cleared")
    status: Literal["active", "done", "cleared"]
    source: Literal["user", "model"] = "user"
    action: Literal["set", "done", "cleared", "continued", "stopped"]
    bound: GoalBound | None = None
    message: str = ""


class HookRunEvent(_Event):
    """A command hook ran (docs/HOOKS.md); `entry_id` is its `hook_run` checkpoint in the log.
    Every client shows it as a small card in the transcript."""

    type: Literal["hook_run"] = "hook_run"
    entry_id: str
    run: HookRunCheckpoint


AGENT_START_FAILED = "agent_start_failed"
"""`ErrorEvent.code` when a kernel's agent cannot start (the gateway then lists it as failed)."""


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    code: str
    message: str
    turn_id: str | None = None
    retryable: bool = False


Event = Annotated[
    MessageDeltaEvent
    | MessageCompleteEvent
    | ToolCallEvent
    | ToolResultEvent
    | ToolUpdateEvent
    | FileMutatedEvent
    | RewindEvent
    | PermissionRequestEvent
    | PermissionResolvedEvent
    | UiRequestEvent
    | UiResolvedEvent
    | TurnStartEvent
    | TurnEndEvent
    | CompactionEvent
    | UsageEvent
    | StatusEvent
    | RestartedEvent
    | ErrorEvent
    | SteerReceiptEvent
    | ContextInjectedEvent
    | CommandOutputEvent
    | GoalUpdateEvent
    | HookRunEvent,
    Field(discriminator="type"),
]

EVENT_BATCH_TYPE = "event_batch"


class EventBatch(WireModel):
    """Several events in one Jupyter message: a burst the kernel coalesced (docs/PROTOCOL.md §4).

    Not an event itself (no seq, never logged); its events are in seq order."""

    type: Literal["event_batch"] = EVENT_BATCH_TYPE
    events: list[Event]


EVENT_TYPES: tuple[str, ...] = (
    "message_delta",
    "message_complete",
    "tool_call",
    "tool_result",
    "tool_update",
    "file_mutated",
    "rewind",
    "permission_request",
    "permission_resolved",
    "ui_request",
    "ui_resolved",
    "turn_start",
    "turn_end",
    "compaction",
    "usage",
    "status",
    "restarted",
    "error",
    "steer_receipt",
    "context_injected",
    "command_output",
    "goal_update",
    "hook_run",
)
