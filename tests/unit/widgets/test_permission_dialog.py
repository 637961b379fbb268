"""PermissionDialog: one request, its answer to a callback, closed by its resolution."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from shard_core.protocol import PermissionRequestEvent, PermissionResponseCommand
from shard_widgets import PermissionDialog
from shard_widgets._controller import ControllerResult
from tests.unit.widgets._support import comm_of, permission_request, permission_resolved


def answer(**fields: Any) -> dict[str, Any]:
    base = {
        "type": "permission_response",
        "id": "c1",
        "request_id": "req-1",
        "decision": "allow",
        "client_id": "w",
    }
    return {**base, **fields}


def reply(ok: bool, message: str = "", command: str = "permission_response") -> dict[str, Any]:
    return {
        "type": "reply",
        "command_id": "c1",
        "command": command,
        "ok": ok,
        "message": message,
        "data": {},
    }


class Answers:
    def __init__(self) -> None:
        self.received: list[PermissionResponseCommand] = []

    def __call__(self, command: PermissionResponseCommand) -> ControllerResult:
        self.received.append(command)
        return None


def test_the_request_is_validated_and_synced_whole() -> None:
    dialog = PermissionDialog(PermissionRequestEvent.model_validate(permission_request(3)))
    assert dialog.request == permission_request(3)
    assert dialog.resolved is None
    with pytest.raises(ValidationError):
        PermissionDialog({"type": "permission_request", "request_id": "r"})


def test_an_answer_reaches_the_callback_as_the_protocol_command() -> None:
    answers = Answers()
    dialog = PermissionDialog(permission_request(0), on_answer=answers)
    dialog._handle_custom_msg(answer(decision="deny", reason="not now"), [])
    assert answers.received == [
        PermissionResponseCommand(
            id="c1", request_id="req-1", decision="deny", client_id="w", reason="not now"
        )
    ]
    assert comm_of(dialog).custom() == [reply(True)]


@pytest.mark.parametrize(
    ("content", "message", "command"),
    [
        (answer(request_id="req-2"), "that answer is for another request", "permission_response"),
        ({"type": "abort", "id": "c1"}, "this dialog only sends permission_response", "abort"),
        (
            answer(decision="sure"),
            "invalid message: permission_response.decision: Input should be "
            "'allow', 'allow_always' or 'deny'",
            "permission_response",
        ),
    ],
)
def test_wrong_answers_are_refused(content: dict[str, Any], message: str, command: str) -> None:
    answers = Answers()
    dialog = PermissionDialog(permission_request(0), on_answer=answers)
    dialog._handle_custom_msg(content, [])
    assert answers.received == []
    assert comm_of(dialog).custom() == [reply(False, message, command)]


def test_once_resolved_later_answers_are_refused() -> None:
    answers = Answers()
    dialog = PermissionDialog(permission_request(0), on_answer=answers)
    dialog.resolve(permission_resolved(1, decided_by="client-b"))
    assert dialog.resolved == permission_resolved(1, decided_by="client-b")
    dialog._handle_custom_msg(answer(), [])
    assert answers.received == []
    assert comm_of(dialog).custom() == [reply(False, "already decided by client-b")]


def test_resolve_checks_the_request_id() -> None:
    dialog = PermissionDialog(permission_request(0))
    with pytest.raises(ValueError, match="does not resolve"):
        dialog.resolve(permission_resolved(1, request_id="other"))


def test_without_a_callback_answers_are_refused() -> None:
    dialog = PermissionDialog(permission_request(0))
    dialog._handle_custom_msg(answer(), [])
    assert comm_of(dialog).custom() == [reply(False, "nobody is listening for this answer")]
