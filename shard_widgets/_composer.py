"""The widget composer's messages on the Python side: a prompt (no turn runs) or a steer (one
does), each with its images, its `@` mentions made context first by the controller (in the
notebook's own kernel, where this runs), and the `@` completion the composer asks for.

A mention that cannot be resolved, or a context the agent does not take, refuses the message
with the reason (the composer keeps the text and images); a controller without the composer's
methods sends the text as it is, or says it takes no prompts.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Any, Literal, cast

from pydantic import Field, TypeAdapter

from shard_core.protocol import CommandReply, PromptCommand, SteerCommand
from shard_core.protocol.commands import PROMPT_IMAGES_MAX
from shard_core.types import ImageBlock, WireModel
from shard_widgets._controller import (
    AgentController,
    ControllerResult,
    MentionRefusedError,
    Mentions,
)
from shard_widgets._messages import MessageError


class HostNotebook(WireModel):
    """The notebook the widget is drawn in, as the page shows it (its host offered the cells):
    nbformat cells, unsaved edits and fresh outputs included."""

    path: str = Field(min_length=1, max_length=4096)
    cells: list[dict[str, Any]] = Field(max_length=5000)

    def named(self) -> tuple[str, list[dict[str, Any]]]:
        return PurePosixPath(self.path).name, self.cells


class MentionOptionsRequest(WireModel):
    """The composer's question (not an agent command): what completes the `@` word typed."""

    type: Literal["mention_options"] = "mention_options"
    id: str | None = None
    word: str = Field(min_length=1, max_length=400)
    notebook: HostNotebook | None = None


class NotebookCellsMessage(WireModel):
    """The cells the next prompt's or steer's `@cell:`/`@output:` read (not an agent command)."""

    type: Literal["notebook_cells"] = "notebook_cells"
    id: str | None = None
    notebook: HostNotebook


WidgetMessage = Annotated[MentionOptionsRequest | NotebookCellsMessage, Field(discriminator="type")]
WIDGET_MESSAGES: TypeAdapter[WidgetMessage] = TypeAdapter(WidgetMessage)
WIDGET_TYPES = frozenset({"mention_options", "notebook_cells"})


def mention_options(controller: AgentController, request: MentionOptionsRequest) -> CommandReply:
    listing: Any = getattr(controller, "mention_options", None)
    shown = request.notebook.named() if request.notebook else None
    found = cast(list[dict[str, str]], listing(request.word, shown)) if callable(listing) else []
    return CommandReply(
        command=request.type, command_id=request.id, ok=True, data={"options": found}
    )


def _refused(command: PromptCommand | SteerCommand, why: str) -> MessageError:
    return MessageError(why, command=command.type, command_id=command.id)


def _with_mentions(
    controller: AgentController,
    command: PromptCommand | SteerCommand,
    notebook: HostNotebook | None,
) -> list[ImageBlock]:
    """Injects the message's mentions as context; returns its images and the cells'."""
    resolve: Any = getattr(controller, "mention_contexts", None)
    images = list(command.images)
    if not callable(resolve):
        return images
    try:
        found = cast(Mentions, resolve(command.text, notebook.named() if notebook else None))
    except MentionRefusedError as exc:
        raise _refused(command, str(exc)) from None
    images += found.images[: max(0, PROMPT_IMAGES_MAX - len(images))]
    inject: Any = getattr(controller, "inject", None)
    if found.contexts and not callable(inject):
        raise _refused(command, "this agent takes no @ mentions through its widget")
    for context in found.contexts:
        reply = inject(context.text, context.kind, context.label)
        if reply is False or (isinstance(reply, CommandReply) and not reply.ok):
            why = reply.message if isinstance(reply, CommandReply) else "refused"
            raise _refused(command, f"{context.label} not sent: {why}")
    return images


def send_composed(
    controller: AgentController,
    command: PromptCommand | SteerCommand,
    notebook: HostNotebook | None = None,
) -> ControllerResult:
    """`notebook`: the cells the page sent just before (`notebook_cells`), else None."""
    if isinstance(command, SteerCommand):
        # images only when there are some: a controller written before steers had them steers on
        found = _with_mentions(controller, command, notebook)
        images = {"images": found} if found else {}
        return controller.steer(
            command.text,
            steer_id=command.steer_id,
            replace=command.replace,
            queue=command.queue,
            **images,
        )
    start: Any = getattr(controller, "send_prompt", None)
    if not callable(start):
        raise _refused(command, "prompt: this agent takes no prompts through its widget")
    return cast(
        ControllerResult, start(command.text, _with_mentions(controller, command, notebook))
    )
