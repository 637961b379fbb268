"""Browser → Python messages: validation against the protocol models, and replies.

A message that fails validation is answered with `reply{ok: false}` naming the fields at fault,
never with a traceback and never echoing the input.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from shard_core.protocol import Command, CommandReply

T = TypeVar("T")

COMMANDS: TypeAdapter[Command] = TypeAdapter(Command)
MAX_ERROR_CHARS = 600


class MessageError(ValueError):
    """A browser message that cannot be acted on; its text goes back in the reply."""

    def __init__(self, message: str, *, command: str = "unknown", command_id: str | None = None):
        super().__init__(message)
        self.command = command
        self.command_id = command_id

    def reply(self) -> CommandReply:
        return CommandReply(
            command=self.command, command_id=self.command_id, ok=False, message=str(self)
        )


def envelope(content: object) -> tuple[str, str | None]:
    """The `type` and `id` of a message, as far as they can be read, for the reply."""
    if not isinstance(content, dict):
        return "unknown", None
    kind: Any = content.get("type")
    ident: Any = content.get("id")
    return (
        kind if isinstance(kind, str) and kind else "unknown",
        ident if isinstance(ident, str) else None,
    )


def parse(adapter: TypeAdapter[T], content: object) -> T:
    command, command_id = envelope(content)
    if not isinstance(content, dict):
        raise MessageError("a message must be a JSON object", command=command)
    try:
        return adapter.validate_python(content)
    except ValidationError as exc:
        raise MessageError(describe(exc), command=command, command_id=command_id) from None


def parse_command(content: object) -> Command:
    return parse(COMMANDS, content)


def describe(error: ValidationError) -> str:
    parts: list[str] = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        location = ".".join(str(part) for part in item["loc"])
        parts.append(f"{location}: {item['msg']}" if location else item["msg"])
    text = "invalid message: " + "; ".join(parts)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def accepted(command: str, command_id: str | None, message: str = "") -> CommandReply:
    return CommandReply(command=command, command_id=command_id, ok=True, message=message)
