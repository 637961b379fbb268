"""Per-agent commands (client → agent) and the agent's direct replies (agent → one client)."""

from __future__ import annotations

import base64
import binascii
import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from shard_core.protocol.events import AgentStatus, Event, PermissionRequestEvent, UiRequestEvent
from shard_core.types import ContextKind, ImageBlock, WireModel

ClientRole = Literal["interactive", "observer"]
LABEL_MAX = 60
"""Longest client label kept (characters); a longer one is cut with an ellipsis."""


def clean_label(value: object) -> object:
    """A label as people will read it: control and format characters (a bidi override, say)
    removed, whitespace runs made one space, at most LABEL_MAX characters; empty → None."""
    if not isinstance(value, str):
        return value  # not a string: the str type check reports it
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in value
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")
    )
    text = " ".join(kept.split())
    if len(text) > LABEL_MAX:
        text = text[: LABEL_MAX - 1].rstrip() + "…"
    return text or None


ClientLabel = Annotated[
    str | None,
    BeforeValidator(clean_label),
    Field(
        default=None,
        description="who the client is, for people: e.g. 'alice · Tab 2' "
        f"(control characters removed, at most {LABEL_MAX} characters)",
    ),
]


class _Command(WireModel):
    id: str | None = Field(default=None, description="echoed in the reply, for correlation")


PROMPT_IMAGES_MAX = 8
PROMPT_IMAGE_BYTES_MAX = 3_750_000
"""one image's bytes: under every bundled provider's limit (Anthropic takes 5 MB of base64)"""


def _few_images(images: list[ImageBlock]) -> list[ImageBlock]:
    if len(images) > PROMPT_IMAGES_MAX:
        raise ValueError(f"{len(images)} images: at most {PROMPT_IMAGES_MAX} go with a prompt")
    for n, image in enumerate(images, 1):
        if (problem := image_problem(image.data)) is not None:
            raise ValueError(f"image {n}: {problem}")
    return images


MessageImages = Annotated[list[ImageBlock], AfterValidator(_few_images)]
"""a prompt's or a steer's images: the same limits and the same refusals for both"""
IMAGES_DOC = (
    f"images that go with the text (pasted, a cell's plots), at most {PROMPT_IMAGES_MAX},"
    f" each base64 of at most {PROMPT_IMAGE_BYTES_MAX:,} bytes"
)


class PromptCommand(_Command):
    type: Literal["prompt"] = "prompt"
    text: str = Field(min_length=1)
    images: MessageImages = Field(default_factory=list[ImageBlock], description=IMAGES_DOC)


def image_problem(data: str) -> str | None:
    """Why base64 `data` cannot go to a model as a prompt's image, or None."""
    size = len(data) * 3 // 4 - data[-2:].count("=")
    if size > PROMPT_IMAGE_BYTES_MAX:
        return (
            f"{size / 1e6:.1f} MB: at most {PROMPT_IMAGE_BYTES_MAX / 1e6:.2f} MB goes with a"
            " prompt (the providers' limit)"
        )
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "the data is not base64"
    return None


class SteerCommand(_Command):
    type: Literal["steer"] = "steer"
    text: str = Field(min_length=1)
    steer_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description="names the steer in its steer_receipt; the agent makes one up when absent",
    )
    images: MessageImages = Field(default_factory=list[ImageBlock], description=IMAGES_DOC)
    replace: bool = Field(default=False, description="supersede the steers not yet admitted")
    queue: bool = Field(
        default=False,
        description="when the turn ends (or none runs) first: wait for the next turn "
        "instead of being rejected",
    )


class InjectCommand(_Command):
    """Add context the next provider request carries, without starting a turn."""

    type: Literal["inject"] = "inject"
    text: str = Field(min_length=1)
    kind: ContextKind = "note"
    label: ClientLabel = None


TITLE_MAX = 120


class SetTitleCommand(_Command):
    type: Literal["set_title"] = "set_title"
    title: str = Field(min_length=1, max_length=TITLE_MAX)


class RewindCommand(_Command):
    """Checkpoints of the agent's session: list the turns, rewind, undo, review or revert.

    The reply's message is the same markdown `/rewind`, `/changes` and `/revert` print; its
    data says what was restored, kept and not restored, and for `diff` holds the render
    descriptors and the review (`data.review`, a ChangesReview). A rewind that changed
    anything reaches every client as a `rewind` event."""

    type: Literal["rewind"] = "rewind"
    action: Literal["list", "rewind", "undo", "diff", "revert"] = "rewind"
    target: str | None = Field(
        default=None,
        description="a turn number or an entry id (diff/revert: the turn, or its prompt's entry)",
    )
    scope: Literal["code", "conversation", "both"] = "both"
    choice: Literal["refuse", "force", "keep"] = Field(
        default="refuse", description="what to do with files a person changed since the agent"
    )
    turn: int | None = Field(default=None, description="diff/revert: one turn (default: all)")
    path: str | None = Field(default=None, description="revert: the file")
    hunk: int | None = Field(default=None, ge=1)
    cell: str | None = None


class AbortCommand(_Command):
    type: Literal["abort"] = "abort"


class AttachCommand(_Command):
    type: Literal["attach"] = "attach"
    role: ClientRole = "interactive"
    client_id: str = Field(min_length=1)
    since: int = Field(default=-1, ge=-1, description="last seq the client has; -1 for none")
    label: ClientLabel = None


class SyncCommand(_Command):
    """Ask for events after `since` (and up to `until`), e.g. after a gap in seq."""

    type: Literal["sync"] = "sync"
    since: int = Field(ge=-1)
    until: int | None = Field(default=None, ge=0)
    limit: int = Field(default=500, ge=1, le=5000)


class HeartbeatCommand(_Command):
    type: Literal["heartbeat"] = "heartbeat"
    client_id: str = Field(min_length=1)


class PermissionResponseCommand(_Command):
    type: Literal["permission_response"] = "permission_response"
    request_id: str = Field(min_length=1)
    decision: Literal["allow", "allow_always", "deny"]
    client_id: str = Field(min_length=1)
    reason: str | None = None
    rule: str | None = Field(default=None, description="for allow_always: the rule to save")
    scope: Literal["agent", "workspace"] = Field(
        default="agent",
        description="for allow_always: save the grant for this agent, or for every agent "
        "whose workspace is this folder",
    )
    label: ClientLabel = None


class UiResponseCommand(_Command):
    type: Literal["ui_response"] = "ui_response"
    request_id: str = Field(min_length=1)
    value: str | bool | list[str] | None = Field(
        description="a question's answer: the chosen strings (one unless it allows several)"
    )
    client_id: str = Field(min_length=1)
    label: ClientLabel = None


class SetModeCommand(_Command):
    type: Literal["set_mode"] = "set_mode"
    mode: str = Field(min_length=1)


class RelayAskCommand(_Command):
    """Ask this agent's people a question on another agent's behalf (a subagent's permission
    request, relayed by the gateway): a `ui_request` every client sees, first answer wins; the
    reply's `data.value` is the option chosen, or null when nobody interactive answered."""

    type: Literal["relay_ask"] = "relay_ask"
    title: str = Field(min_length=1, max_length=2000)
    message: str = Field(default="", max_length=4000)
    options: list[str] = Field(min_length=1, max_length=12)
    question: bool = Field(
        default=False,
        description="an ask_user question (a workflow's wf.ask): `data.value` is the chosen "
        "list, `data.decided_by` who answered",
    )
    multi: bool = False
    allow_other: bool = False


class SessionOpCommand(_Command):
    type: Literal["session_op"] = "session_op"
    op: Literal["compact", "fork", "list"]
    entry_id: str | None = Field(default=None, description="fork point; default the newest entry")


class SlashCommand(_Command):
    """Run a slash command (`/status`, `/help`, an extension's): its output is a
    `command_output` event every client shows, and the reply's `message` (ok or not)."""

    type: Literal["slash"] = "slash"
    text: str = Field(min_length=2, max_length=10_000, pattern=r"^/\S")
    client_id: str | None = Field(default=None, min_length=1)
    label: ClientLabel = None


class ListCommandsCommand(_Command):
    """Ask for the slash commands this agent has: the reply's `data.commands` is a list of
    SlashCommandInfo (every registered command, bundled or an extension's)."""

    type: Literal["list_commands"] = "list_commands"


class SlashCommandInfo(WireModel):
    """One slash command an agent has, for completion and help."""

    name: str = Field(description="with its slash, e.g. '/status'")
    description: str
    extension: str = Field(description="the extension that registered it")
    hint: str = Field(
        default="", description="what goes after the name, e.g. 'QUERY'; empty: nothing"
    )


Command = Annotated[
    PromptCommand
    | SteerCommand
    | AbortCommand
    | AttachCommand
    | SyncCommand
    | HeartbeatCommand
    | PermissionResponseCommand
    | UiResponseCommand
    | SetModeCommand
    | SessionOpCommand
    | InjectCommand
    | SetTitleCommand
    | RewindCommand
    | RelayAskCommand
    | SlashCommand
    | ListCommandsCommand,
    Field(discriminator="type"),
]


class SnapshotReply(WireModel):
    """The answer to attach and sync: current state plus a page of past events."""

    type: Literal["snapshot"] = "snapshot"
    command_id: str | None = None
    agent_id: str
    status: AgentStatus
    mode: str
    model: str
    last_seq: int = Field(ge=-1)
    pending_permissions: list[PermissionRequestEvent] = Field(
        default_factory=list[PermissionRequestEvent]
    )
    pending_ui: list[UiRequestEvent] = Field(default_factory=list[UiRequestEvent])
    events: list[Event] = Field(default_factory=list[Event])
    has_more: bool = False


class CommandReply(WireModel):
    """Acknowledges one command to its sender only, e.g. 'already decided by client-b'."""

    type: Literal["reply"] = "reply"
    command_id: str | None = None
    command: str
    ok: bool
    message: str = ""
    data: dict[str, object] = Field(default_factory=dict)


Reply = Annotated[SnapshotReply | CommandReply, Field(discriminator="type")]
