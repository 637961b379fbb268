"""The base every Shard widget shares: the bundled stylesheet, a client id, and the message path.

A browser message goes to `_handle` (each widget's own), whose outcome — possibly awaitable —
becomes exactly one `reply` back to the browser. Nothing raised in between reaches the front
end as a traceback: it is logged here and answered with `ok: false`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any

import anywidget
import traitlets

from shard_core.protocol import CommandReply
from shard_widgets import _bundle
from shard_widgets._controller import ControllerResult, Outcome
from shard_widgets._messages import MessageError, accepted, envelope

log = logging.getLogger("shard_widgets")


class ShardWidget(anywidget.AnyWidget):
    _css = _bundle.css()

    client_id = traitlets.Unicode("", help="who this browser answers as; empty: a per-page id").tag(
        sync=True
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tasks: set[asyncio.Task[Outcome]] = set()
        self.on_msg(self._on_custom_msg)

    def _handle(self, content: dict[str, Any]) -> tuple[str, str | None, ControllerResult]:
        """Validates and acts on one message: (command type, command id, outcome)."""
        raise NotImplementedError

    def _on_custom_msg(self, _widget: object, content: object, _buffers: object) -> None:
        command, command_id = envelope(content)
        try:
            if not isinstance(content, dict):
                raise MessageError("a message must be a JSON object")
            command, command_id, outcome = self._handle(content)
        except MessageError as exc:
            self._send_reply(exc.reply())
            return
        except Exception as exc:
            self._send_reply(self._failure(command, command_id, exc))
            return
        if inspect.isawaitable(outcome):
            self._await(command, command_id, outcome)
        else:
            self._send_reply(self._as_reply(command, command_id, outcome))

    def _await(self, command: str, command_id: str | None, outcome: Awaitable[Outcome]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if inspect.iscoroutine(outcome):
                outcome.close()
            message = "the controller answered asynchronously but no event loop is running"
            self._send_reply(
                CommandReply(command=command, command_id=command_id, ok=False, message=message)
            )
            return

        async def wait() -> Outcome:
            return await outcome

        task = loop.create_task(wait())
        self._tasks.add(task)

        def done(finished: asyncio.Task[Outcome]) -> None:
            self._tasks.discard(finished)
            if finished.cancelled():
                reply = CommandReply(
                    command=command, command_id=command_id, ok=False, message="cancelled"
                )
            elif (exc := finished.exception()) is not None:
                reply = self._failure(command, command_id, exc)
            else:
                reply = self._as_reply(command, command_id, finished.result())
            self._send_reply(reply)

        task.add_done_callback(done)

    @staticmethod
    def _as_reply(command: str, command_id: str | None, outcome: Outcome) -> CommandReply:
        if isinstance(outcome, CommandReply):
            if outcome.command_id is None and command_id is not None:
                return outcome.model_copy(update={"command_id": command_id})
            return outcome
        if outcome is False:
            return CommandReply(command=command, command_id=command_id, ok=False, message="refused")
        return accepted(command, command_id)

    @staticmethod
    def _failure(command: str, command_id: str | None, exc: BaseException) -> CommandReply:
        log.error("shard widget: %s failed", command, exc_info=exc)
        message = f"{type(exc).__name__}: {exc}"[:300]
        return CommandReply(command=command, command_id=command_id, ok=False, message=message)

    def _send_reply(self, reply: CommandReply) -> None:
        self.send(reply.model_dump(mode="json"))
