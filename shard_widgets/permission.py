"""PermissionDialog: one permission request on its own, answered to a callback.

For hosts that show a single question (the shard kernel's display of a permission prompt)
rather than a whole transcript. The host closes it with `resolve(permission_resolved event)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traitlets
from pydantic import BaseModel

from shard_core.protocol import (
    PermissionRequestEvent,
    PermissionResolvedEvent,
    PermissionResponseCommand,
)
from shard_widgets import _bundle
from shard_widgets._base import ShardWidget
from shard_widgets._controller import ControllerResult
from shard_widgets._messages import MessageError, parse_command

AnswerCallback = Callable[[PermissionResponseCommand], ControllerResult]


class PermissionDialog(ShardWidget):
    _esm = _bundle.esm("permission-dialog.js")

    request = traitlets.Dict(help="the permission_request event").tag(sync=True)
    resolved = traitlets.Dict(
        allow_none=True, default_value=None, help="its permission_resolved event"
    ).tag(sync=True)

    def __init__(
        self,
        request: PermissionRequestEvent | dict[str, Any],
        on_answer: AnswerCallback | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(request=_as_dict(request, PermissionRequestEvent), **kwargs)
        self.on_answer = on_answer

    def resolve(self, event: PermissionResolvedEvent | dict[str, Any]) -> None:
        resolved = _as_dict(event, PermissionResolvedEvent)
        if resolved["request_id"] != self.request["request_id"]:
            raise ValueError(
                f"{resolved['request_id']} does not resolve {self.request['request_id']}"
            )
        self.resolved = resolved

    def _handle(self, content: dict[str, Any]) -> tuple[str, str | None, ControllerResult]:
        command = parse_command(content)
        if not isinstance(command, PermissionResponseCommand):
            raise MessageError(
                "this dialog only sends permission_response",
                command=command.type,
                command_id=command.id,
            )
        if command.request_id != self.request["request_id"]:
            raise MessageError(
                "that answer is for another request", command=command.type, command_id=command.id
            )
        if self.resolved is not None:
            who = self.resolved["decided_by"]
            raise MessageError(
                f"already decided by {who}", command=command.type, command_id=command.id
            )
        if self.on_answer is None:
            raise MessageError(
                "nobody is listening for this answer", command=command.type, command_id=command.id
            )
        return command.type, command.id, self.on_answer(command)


def _as_dict(event: BaseModel | dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    validated = event if isinstance(event, model) else model.model_validate(event)
    return validated.model_dump(mode="json")
