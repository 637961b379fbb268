"""SessionEntry: one line of the append-only session JSONL, and the details each type carries.

Every entry is `{v, id, parentId, ts, type, details}`. `parentId` chains entries into branches;
the active branch is the chain ending at the newest entry. Nothing is ever rewritten.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shard_core.types.base import JsonObject, WireModel
from shard_core.types.content import Message
from shard_core.types.results import ToolResult

ENTRY_VERSION = 1


class _Entry(WireModel):
    v: Literal[1] = ENTRY_VERSION
    id: str = Field(min_length=1)
    parent_id: str | None = Field(default=None, alias="parentId")
    ts: float = Field(description="seconds since the epoch, UTC")


# ---------------------------------------------------------------- session header


class SessionHeaderDetails(WireModel):
    session_id: str = Field(min_length=1)
    cwd: str
    agent_id: str | None = None
    parent_session: str | None = Field(default=None, description="set on forks")
    parent_entry: str | None = Field(default=None, description="the entry a fork starts from")


class SessionHeaderEntry(_Entry):
    type: Literal["session"] = "session"
    details: SessionHeaderDetails


# ---------------------------------------------------------------- messages


class RequestRecord(WireModel):
    """Enough to rebuild the provider request that produced an assistant message: with the
    system prompt and tools behind the hashes (ContextCheckpoint) and the branch ending at
    `leaf_id`, every parameter that reached the provider (`shard session request`)."""

    model: str
    system_hash: str
    tools_hash: str
    turn_id: str
    provider: str | None = Field(default=None, description="the provider's name, e.g. openai")
    max_tokens: int | None = None
    temperature: float | None = None
    leaf_id: str | None = Field(
        default=None, description="the newest entry of the branch the request's messages came from"
    )
    options: JsonObject = Field(
        default_factory=dict,
        description="provider settings that shape the wire request (e.g. which max-tokens "
        "field an OpenAI-compatible server gets)",
    )


ContextKind = Literal["note", "file", "output", "variable"]


class InjectedContext(WireModel):
    """What a user message injected without a turn is: a note, a file, a cell's output."""

    kind: ContextKind
    label: str | None = None


class MessageDetails(WireModel):
    message: Message
    request: RequestRecord | None = None
    turn_id: str | None = None
    steer_id: str | None = Field(default=None, description="set on a steering message")
    context: InjectedContext | None = Field(default=None, description="set on injected context")


class MessageEntry(_Entry):
    type: Literal["message"] = "message"
    details: MessageDetails


class ToolResultDetails(WireModel):
    tool_call_id: str = Field(min_length=1)
    name: str
    result: ToolResult
    duration_ms: float | None = None
    turn_id: str | None = None


class ToolResultEntry(_Entry):
    type: Literal["tool_result"] = "tool_result"
    details: ToolResultDetails


# ---------------------------------------------------------------- compaction


class CompactionDetails(WireModel):
    summary: str
    first_kept_entry_id: str | None = Field(
        description="live context resumes here; None when nothing is kept verbatim"
    )
    range_first_id: str
    range_last_id: str
    tokens_before: int = Field(ge=0)
    tokens_after: int = Field(ge=0)
    compactor: str
    index: int = Field(ge=0)
    reason: Literal["threshold", "overflow", "manual"] = "threshold"


class CompactionEntry(_Entry):
    type: Literal["compaction"] = "compaction"
    details: CompactionDetails


# ---------------------------------------------------------------- checkpoints


class ModeCheckpoint(WireModel):
    kind: Literal["mode"] = "mode"
    mode: str


class PlanStep(WireModel):
    text: str
    done: bool = False


class PlanCheckpoint(WireModel):
    kind: Literal["plan"] = "plan"
    steps: list[PlanStep]
    text: str = Field(description="the plan section as the model wrote it")
    source_entry_id: str | None = None


class SkillCheckpoint(WireModel):
    kind: Literal["skill"] = "skill"
    name: str
    path: str
    source_entry_id: str | None = None


class TitleCheckpoint(WireModel):
    """The session's title; the newest one on the branch wins (forks inherit it)."""

    kind: Literal["title"] = "title"
    title: str = Field(min_length=1)
    source: Literal["prompt", "user", "model"] = "prompt"


class GoalCheckpoint(WireModel):
    """The session's objective as the user set it (`/goal`); the newest one on the branch wins.
    `status` "active" is a goal being worked on, "done" one reported met, "cleared" none."""

    kind: Literal["goal"] = "goal"
    text: str | None = Field(default=None, description="the goal, verbatim; None when cleared")
    status: Literal["active", "done", "cleared"] = "active"
    source: Literal["user", "model"] = "user"


class TodoItem(WireModel):
    id: str = Field(min_length=1)
    content: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "done"] = "pending"


class TodosCheckpoint(WireModel):
    """The agent's todo list as its last `todo_write` left it (each call replaces it whole)."""

    kind: Literal["todos"] = "todos"
    items: list[TodoItem]
    source_entry_id: str | None = Field(default=None, description="the todo_write result")
    source: Literal["todo_write", "plan"] = Field(
        default="todo_write", description="plan: made from plan mode's plan, step by step"
    )


class ContextCheckpoint(WireModel):
    """The system prompt and tool set behind a hash, written the first time the hash is used."""

    kind: Literal["context"] = "context"
    system_hash: str
    system: list[JsonObject]
    tools_hash: str
    tools: list[JsonObject]


class FileChange(WireModel):
    """One file a tool (or a rewind) changed: from which stored blob to which.

    `before`/`after` are blob ids (the SHA-256 of the bytes, hex) in the checkpoint store under
    SHARD_HOME; None with `existed_*` false means the file did not exist (created, deleted);
    None with `existed_*` true means its content was not kept (`note` says why)."""

    path: str = Field(min_length=1, description="relative to the workspace, '/'-separated")
    before: str | None = None
    after: str | None = None
    existed_before: bool = True
    exists_after: bool = True
    note: str | None = Field(default=None, description="why a side was not kept")


class FilesCheckpoint(WireModel):
    """The files one tool result changed (or a rewind put back), written right after it."""

    kind: Literal["files"] = "files"
    origin: Literal["tool", "task", "rewind"] = "tool"
    tool: str
    tool_call_id: str | None = None
    turn_id: str | None = None
    source_entry_id: str | None = Field(
        default=None, description="the tool result whose changes these are"
    )
    changes: list[FileChange]
    incomplete: str | None = Field(
        default=None, description="set when a workspace scan gave up (too many or large files)"
    )
    rewound_to: str | None = Field(
        default=None, description="for a rewind: the entry whose prior state was restored"
    )
    previous_leaf_id: str | None = Field(
        default=None,
        description="for a rewind that also moved the conversation: the leaf it left (undo)",
    )


HookDecision = Literal[
    "none", "block", "deny", "allow", "ask", "updated_input", "context", "continue", "stop", "error"
]


class HookRunCheckpoint(WireModel):
    """One command hook's run (docs/HOOKS.md): what ran for which event, how it ended, what it
    decided. Every client shows it as a small card (the `hook_run` event carries it)."""

    kind: Literal["hook_run"] = "hook_run"
    event: str = Field(description="the Claude Code event name, e.g. PreToolUse")
    command: str
    source: str = Field(description="where the hook is configured: config.json or a file")
    tool: str | None = None
    tool_call_id: str | None = None
    turn_id: str | None = None
    exit_code: int | None = Field(default=None, description="None: timed out or never started")
    timed_out: bool = False
    duration_ms: float = Field(ge=0)
    decision: HookDecision
    reason: str | None = Field(default=None, description="a block's, deny's or stop's reason")
    system_message: str | None = Field(default=None, description="the hook's note for the user")
    sandboxed: bool = False


CheckpointDetails = Annotated[
    ModeCheckpoint
    | PlanCheckpoint
    | SkillCheckpoint
    | ContextCheckpoint
    | TitleCheckpoint
    | GoalCheckpoint
    | TodosCheckpoint
    | FilesCheckpoint
    | HookRunCheckpoint,
    Field(discriminator="kind"),
]


class CheckpointEntry(_Entry):
    type: Literal["checkpoint"] = "checkpoint"
    details: CheckpointDetails


# ---------------------------------------------------------------- permissions

DecisionSource = Literal["rule", "grant", "mode", "client", "headless", "timeout", "abort", "hook"]


class PermissionDetails(WireModel):
    request_id: str
    tool: str
    input: JsonObject
    decision: Literal["allow", "allow_always", "deny"]
    source: DecisionSource
    decided_by: str | None = Field(
        default=None, description="client label (else client id), rule or policy name"
    )
    rule: str | None = None
    reason: str | None = None
    tool_call_id: str | None = None
    client_id: str | None = Field(default=None, description="the deciding client's id")
    scope: Literal["agent", "workspace"] | None = Field(
        default=None,
        description="for allow_always: whose grant was saved, this agent's or every agent's "
        "in this workspace folder",
    )


class PermissionEntry(_Entry):
    type: Literal["permission"] = "permission"
    details: PermissionDetails


SessionEntry = Annotated[
    SessionHeaderEntry
    | MessageEntry
    | ToolResultEntry
    | CompactionEntry
    | CheckpointEntry
    | PermissionEntry,
    Field(discriminator="type"),
]
