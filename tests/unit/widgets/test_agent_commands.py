"""Browser → AgentWidget: commands checked with the protocol models, then sent to the controller."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shard_core.protocol import CommandReply
from shard_widgets import AgentWidget
from shard_widgets._controller import ControllerResult, PermissionDecision, UiValue
from tests.unit.widgets._support import comm_of


class RecordingController:
    def __init__(self, result: ControllerResult = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.result = result

    def respond_permission(
        self,
        request_id: str,
        decision: PermissionDecision,
        *,
        client_id: str,
        rule: str | None,
        reason: str | None,
    ) -> ControllerResult:
        self.calls.append(("respond_permission", request_id, decision, client_id, rule, reason))
        return self.result

    def respond_ui(self, request_id: str, value: UiValue, *, client_id: str) -> ControllerResult:
        self.calls.append(("respond_ui", request_id, value, client_id))
        return self.result

    def abort(self) -> ControllerResult:
        self.calls.append(("abort",))
        return self.result

    def steer(self, text: str, **_options: object) -> ControllerResult:
        self.calls.append(("steer", text))
        return self.result

    def set_mode(self, mode: str) -> ControllerResult:
        self.calls.append(("set_mode", mode))
        return self.result


def ok(command: str, command_id: str | None) -> dict[str, Any]:
    return {
        "type": "reply",
        "command_id": command_id,
        "command": command,
        "ok": True,
        "message": "",
        "data": {},
    }


def refused(command: str, command_id: str | None, message: str) -> dict[str, Any]:
    return {
        "type": "reply",
        "command_id": command_id,
        "command": command,
        "ok": False,
        "message": message,
        "data": {},
    }


@pytest.mark.parametrize(
    ("content", "call"),
    [
        (
            {
                "type": "permission_response",
                "id": "c1",
                "request_id": "req-1",
                "decision": "allow",
                "client_id": "w-1",
            },
            ("respond_permission", "req-1", "allow", "w-1", None, None),
        ),
        (
            {
                "type": "permission_response",
                "id": "c1",
                "request_id": "req-1",
                "decision": "allow_always",
                "client_id": "w-1",
                "rule": "bash(make)",
                "reason": None,
            },
            ("respond_permission", "req-1", "allow_always", "w-1", "bash(make)", None),
        ),
        (
            {
                "type": "permission_response",
                "id": "c1",
                "request_id": "r",
                "decision": "deny",
                "client_id": "w",
                "reason": "no",
            },
            ("respond_permission", "r", "deny", "w", None, "no"),
        ),
        (
            {"type": "ui_response", "id": "c1", "request_id": "u", "value": True, "client_id": "w"},
            ("respond_ui", "u", True, "w"),
        ),
        ({"type": "abort", "id": "c1"}, ("abort",)),
        (
            {"type": "steer", "id": "c1", "text": "also run the tests"},
            ("steer", "also run the tests"),
        ),
        ({"type": "set_mode", "id": "c1", "mode": "plan"}, ("set_mode", "plan")),
    ],
)
def test_valid_commands_reach_the_controller_and_are_acknowledged(
    content: dict[str, Any], call: tuple[Any, ...]
) -> None:
    controller = RecordingController()
    widget = AgentWidget(controller)
    widget._handle_custom_msg(content, [])
    assert controller.calls == [call]
    assert comm_of(widget).custom() == [ok(content["type"], "c1")]


@pytest.mark.parametrize(
    ("content", "reply"),
    [
        (
            {"type": "launch_missiles", "id": "c9"},
            refused(
                "launch_missiles",
                "c9",
                "invalid message: Input tag 'launch_missiles' found using 'type' does not match "
                "any of the expected tags: 'prompt', 'steer', 'abort', 'attach', 'sync', "
                "'heartbeat', 'permission_response', 'ui_response', 'set_mode', 'session_op', "
                "'inject', 'set_title', 'rewind', 'relay_ask', 'slash', 'list_commands'",
            ),
        ),
        (
            {"id": "c9", "text": "no type"},
            refused(
                "unknown", "c9", "invalid message: Unable to extract tag using discriminator 'type'"
            ),
        ),
        (
            {"type": "permission_response", "id": "c9", "request_id": "r", "decision": "allow"},
            refused(
                "permission_response",
                "c9",
                "invalid message: permission_response.client_id: Field required",
            ),
        ),
        (
            {
                "type": "permission_response",
                "request_id": "r",
                "decision": "maybe",
                "client_id": "w",
            },
            refused(
                "permission_response",
                None,
                "invalid message: permission_response.decision: "
                "Input should be 'allow', 'allow_always' or 'deny'",
            ),
        ),
        (
            {"type": "steer", "id": "c9", "text": "x", "sneaky": "<script>"},
            refused("steer", "c9", "invalid message: steer.sneaky: Extra inputs are not permitted"),
        ),
        (
            {"type": "steer", "id": "c9", "text": ""},
            refused(
                "steer",
                "c9",
                "invalid message: steer.text: String should have at least 1 character",
            ),
        ),
        (["not", "an", "object"], refused("unknown", None, "a message must be a JSON object")),
        ("abort", refused("unknown", None, "a message must be a JSON object")),
        (
            {"type": "prompt", "id": "c9", "text": "hi"},
            refused("prompt", "c9", "prompt: this agent takes no prompts through its widget"),
        ),
        (
            {"type": "attach", "id": "c9", "client_id": "w"},
            refused("attach", "c9", "attach is not sent through this widget"),
        ),
    ],
)
def test_invalid_messages_get_an_error_reply_and_never_reach_the_controller(
    content: object, reply: dict[str, Any]
) -> None:
    controller = RecordingController()
    widget = AgentWidget(controller)
    widget._handle_custom_msg(content, [])
    assert controller.calls == []
    assert comm_of(widget).custom() == [reply]


def test_the_error_never_echoes_the_input() -> None:
    widget = AgentWidget(RecordingController())
    widget._handle_custom_msg({"type": "steer", "text": "x", "api_key": "sk-secret-value"}, [])
    (reply,) = comm_of(widget).custom()
    assert "sk-secret-value" not in str(reply)


def test_without_a_controller_commands_are_refused() -> None:
    widget = AgentWidget()
    widget._handle_custom_msg({"type": "abort", "id": "c1"}, [])
    assert comm_of(widget).custom() == [
        refused("abort", "c1", "no agent is attached to this widget")
    ]


def test_a_controller_can_be_attached_later() -> None:
    widget = AgentWidget()
    widget.controller = controller = RecordingController()
    widget._handle_custom_msg({"type": "abort"}, [])
    assert controller.calls == [("abort",)]


def test_controller_failures_become_error_replies_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(RecordingController):
        def abort(self) -> ControllerResult:
            raise RuntimeError("turn task is gone")

    widget = AgentWidget(Broken())
    widget._handle_custom_msg({"type": "abort", "id": "c1"}, [])
    assert comm_of(widget).custom() == [refused("abort", "c1", "RuntimeError: turn task is gone")]
    assert "Traceback" not in str(comm_of(widget).custom())
    assert "turn task is gone" in caplog.text  # logged kernel-side for whoever debugs it


def test_controller_outcomes_shape_the_reply() -> None:
    widget = AgentWidget(RecordingController(result=False))
    widget._handle_custom_msg({"type": "abort", "id": "c1"}, [])
    answer = CommandReply(
        command="permission_response", ok=False, message="already decided by client-b"
    )
    widget.controller = RecordingController(result=answer)
    widget._handle_custom_msg(
        {
            "type": "permission_response",
            "id": "c2",
            "request_id": "r",
            "decision": "allow",
            "client_id": "w",
        },
        [],
    )
    assert comm_of(widget).custom() == [
        refused("abort", "c1", "refused"),
        refused("permission_response", "c2", "already decided by client-b"),
    ]


async def test_an_async_controller_is_awaited_on_the_running_loop() -> None:
    class Async(RecordingController):
        async def later(self) -> CommandReply:
            await asyncio.sleep(0)
            return CommandReply(command="steer", ok=True, message="queued")

        def steer(self, text: str, **_options: object) -> ControllerResult:
            self.calls.append(("steer", text))
            return self.later()

    widget = AgentWidget(Async())
    widget._handle_custom_msg({"type": "steer", "id": "c1", "text": "go"}, [])
    assert comm_of(widget).custom() == []
    while widget._tasks:
        await asyncio.gather(*widget._tasks)
    assert comm_of(widget).custom() == [
        {
            "type": "reply",
            "command_id": "c1",
            "command": "steer",
            "ok": True,
            "message": "queued",
            "data": {},
        }
    ]


async def test_an_async_controller_failure_is_replied() -> None:
    class Async(RecordingController):
        async def fail(self) -> None:
            raise ValueError("mode 'yolo' is not registered")

        def set_mode(self, mode: str) -> ControllerResult:
            return self.fail()

    widget = AgentWidget(Async())
    widget._handle_custom_msg({"type": "set_mode", "id": "c1", "mode": "yolo"}, [])
    while widget._tasks:
        await asyncio.gather(*widget._tasks, return_exceptions=True)
    assert comm_of(widget).custom() == [
        refused("set_mode", "c1", "ValueError: mode 'yolo' is not registered")
    ]


def test_an_async_controller_without_a_loop_is_refused_not_leaked() -> None:
    class Async(RecordingController):
        async def never(self) -> None:
            return None

        def abort(self) -> ControllerResult:
            return self.never()

    widget = AgentWidget(Async())
    widget._handle_custom_msg({"type": "abort", "id": "c1"}, [])
    assert comm_of(widget).custom() == [
        refused(
            "abort", "c1", "the controller answered asynchronously but no event loop is running"
        )
    ]


def test_the_full_comm_message_path() -> None:
    controller = RecordingController()
    widget = AgentWidget(controller)
    widget._handle_msg(
        {"content": {"data": {"method": "custom", "content": {"type": "abort"}}}, "buffers": []}
    )
    assert controller.calls == [("abort",)]
