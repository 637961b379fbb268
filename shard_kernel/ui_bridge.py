"""CommUiBridge: an extension's `api.ui` questions, asked over the wire, answered by anyone once.

Each question is a `ui_request` event every client sees; the first `ui_response` (a comm
command) wins and `ui_resolved` names who decided; later answers are told who did. With no
interactive client, or no answer in time, the question resolves to None (no answer). An
`ask_user` question (ui `question`) takes only its choices (or the person's own words when it
allows them): another answer is refused to its sender and the question stays open.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt, question_problem
from shard_core.engine.events import EventStream
from shard_core.protocol.events import UiKind, UiRequestEvent, UiResolvedEvent, UiValue


@dataclass
class _Open:
    future: asyncio.Future[UiValue]
    decided_by: str | None = None
    value: UiValue = None
    done: bool = field(default=False)
    client_id: str | None = None
    question: QuestionPrompt | None = None
    """an ask_user question: what its answers are checked against"""


class CommUiBridge:
    def __init__(
        self, events: EventStream, has_responder: Callable[[], bool], timeout: float = 60.0
    ) -> None:
        self.events = events
        self.has_responder = has_responder
        self.timeout = timeout
        self._open: dict[str, _Open] = {}

    async def _ask(
        self,
        kind: UiKind,
        title: str,
        message: str,
        question: QuestionPrompt | None = None,
        **extra: object,
    ) -> UiValue:
        slot = await self._asked(kind, title, message, question, **extra)
        return None if slot is None else slot.value

    async def _asked(
        self,
        kind: UiKind,
        title: str,
        message: str,
        question: QuestionPrompt | None = None,
        **extra: object,
    ) -> _Open | None:
        """The question once it is settled (answered, timed out, withdrawn); None: no one to
        ask."""
        if not self.has_responder():
            return None
        request_id = f"ui-{uuid.uuid4().hex[:12]}"
        slot = _Open(asyncio.get_running_loop().create_future(), question=question)
        self._open[request_id] = slot
        self.events.emit(
            UiRequestEvent, request_id=request_id, ui=kind, title=title, message=message, **extra
        )
        try:
            await asyncio.wait_for(asyncio.shield(slot.future), self.timeout)
        except TimeoutError:
            self._settle(request_id, None, "timeout")
        finally:
            if not slot.done:  # cancelled: withdraw the question
                self._settle(request_id, None, "abort")
        return slot

    def respond(
        self, request_id: str, value: UiValue, client_id: str, label: str | None = None
    ) -> tuple[bool, str]:
        """A client's answer; `ui_resolved` names it by `label` when it gave one."""
        slot = self._open.get(request_id)
        if slot is None:
            return False, f"no open ui request {request_id}"
        if slot.done:
            return False, f"already decided by {slot.decided_by}"
        if slot.question is not None:
            values = [value] if isinstance(value, str) else value
            if not isinstance(values, list):
                return False, "answer a question with the chosen strings"
            problem = question_problem(slot.question, cast("list[str]", values))
            if problem is not None:
                return False, f"{problem}; the question is still open"
            value = values
        self._settle(request_id, value, label or client_id, client_id)
        return True, ""

    def _settle(
        self, request_id: str, value: UiValue, by: str, client_id: str | None = None
    ) -> None:
        slot = self._open[request_id]
        if slot.done:
            return
        slot.done, slot.value, slot.decided_by, slot.client_id = True, value, by, client_id
        if not slot.future.done():
            slot.future.set_result(value)
        self.events.emit(
            UiResolvedEvent, request_id=request_id, value=value, decided_by=by, client_id=client_id
        )

    # ------------------------------------------------------------ UiBridge

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        # Permission questions go through the gate's own first-answer-wins registry.
        return PermissionAnswer("deny", "ui", source="headless", reason="not asked over ui")

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        value = await self._ask("select", title, message, options=options)
        return value if isinstance(value, str) and value in options else None

    async def confirm(self, title: str, message: str = "") -> bool | None:
        value = await self._ask("confirm", title, message)
        return value if isinstance(value, bool) else None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        value = await self._ask("input", title, message, default=default)
        return value if isinstance(value, str) else default

    async def question(self, prompt: QuestionPrompt) -> QuestionAnswer | None:
        slot = await self._asked("question", prompt.question, prompt.detail, question=prompt,
                                 options=list(prompt.choices), multi=prompt.multi,
                                 allow_other=prompt.allow_other)  # fmt: skip
        if slot is None or not isinstance(slot.value, list):
            return None
        return QuestionAnswer(tuple(cast("list[str]", slot.value)), slot.decided_by or "a client")

    async def notify(self, title: str, message: str = "") -> None:
        request_id = f"ui-{uuid.uuid4().hex[:12]}"
        self.events.emit(
            UiRequestEvent, request_id=request_id, ui="notify", title=title, message=message
        )
        self.events.emit(UiResolvedEvent, request_id=request_id, value=None, decided_by="notify")
