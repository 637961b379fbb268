"""Asker: one permission question from announcement to its first valid answer.

The question is opened in `PendingRequests`, announced as a `permission_request` event and
offered to the UI bridge. Whoever answers first decides: the bridge, `respond` (the kernel's comm
handler, any interactive client), `withdraw`, or — with no responder, or after the timeout — the
headless policy. A cancelled wait withdraws the question so every client can dismiss it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace

from shard_core.contracts import PermissionAnswer, PermissionPrompt, UiBridge
from shard_core.engine.events import EventStream
from shard_core.engine.permissions.announce import announce_request, announce_resolved
from shard_core.engine.permissions.answers import (
    DECISIONS,
    SOURCES,
    gate_deny,
    normalize_allow_always,
)
from shard_core.engine.permissions.explain import Explanation
from shard_core.engine.permissions.headless import HeadlessPolicy, headless_answer
from shard_core.engine.permissions.pending import PendingRequests, RespondResult
from shard_core.types.errors import ConfigError

__all__ = ["Asker"]

_log = logging.getLogger(__name__)


class Asker:
    """Asks people (or the headless policy) and returns the one answer that counts."""

    def __init__(
        self,
        *,
        events: EventStream | None,
        ui: UiBridge | None,
        has_responder: Callable[[], bool],
        headless_policy: HeadlessPolicy,
        timeout: float,
        pending: PendingRequests,
    ) -> None:
        self.headless_policy: HeadlessPolicy = headless_policy
        self.timeout = timeout
        self.pending = pending
        self._events = events
        self._ui = ui
        self._has_responder = has_responder
        self._asking: dict[str, Explanation] = {}

    async def ask(self, prompt: PermissionPrompt, found: Explanation) -> PermissionAnswer:
        rid = prompt.request_id
        self._asking[rid] = found
        bridge: asyncio.Task[None] | None = None
        try:
            self.pending.open(prompt)
            announce_request(self._events, prompt)
            bridge = asyncio.create_task(self._via_bridge(prompt)) if self._ui else None
            return await self._first_answer(prompt, found)
        except asyncio.CancelledError:
            self.withdraw(rid, "the turn was interrupted")
            announce_resolved(self._events, rid, self.pending.decided(rid), prompt.tool_call_id)
            raise
        except Exception as exc:  # fail closed
            _log.exception("waiting for a permission answer failed")
            return gate_deny(f"could not get an answer: {exc}")
        finally:
            if bridge is not None:
                bridge.cancel()
            self._asking.pop(rid, None)

    async def _first_answer(self, prompt: PermissionPrompt, found: Explanation) -> PermissionAnswer:
        """The first answer; the headless policy answers when no one can (queue: wait for ever)."""
        rid, policy = prompt.request_id, self.headless_policy
        if policy == "queue":
            answer = await self.pending.wait(rid, None)
            return answer or gate_deny("the question closed without an answer")
        responder = self._has_responder()
        answer = await self.pending.wait(rid, self.timeout) if responder else None
        if answer is not None:
            return answer
        why = "timeout" if responder else "headless"
        fallback = headless_answer(
            policy, found, read_only=prompt.read_only, why=why, timeout=self.timeout
        )
        if fallback is not None:
            self.pending.resolve(rid, fallback)  # a client that answered just before still wins
        return self.pending.decided(rid) or gate_deny("the question closed without an answer")

    def respond(
        self,
        request_id: str,
        decision: str,
        client_id: str,
        role: str,
        reason: str | None = None,
        rule: str | None = None,
        label: str | None = None,
        scope: str = "agent",
    ) -> RespondResult:
        """A client's answer; it is recorded as decided by its label when it gave one."""
        answer = PermissionAnswer(
            decision, label or client_id, "client", reason, rule, client_id, scope
        )
        return self.submit(request_id, answer, role)

    def withdraw(
        self, request_id: str, reason: str = "withdrawn", by: str = "abort"
    ) -> RespondResult:
        return self.pending.withdraw(request_id, reason, by)

    def submit(self, request_id: str, answer: PermissionAnswer, role: str) -> RespondResult:
        """Validate and normalise an answer, then offer it to the registry (first one wins)."""
        if answer.decision not in DECISIONS:
            expected = ", ".join(DECISIONS)
            return RespondResult(
                False, f"unknown decision {answer.decision!r}; expected {expected}"
            )
        prompt = self.pending.get(request_id)
        found = self._asking.get(request_id)
        if prompt is None or found is None:  # the registry says who decided, or that it never was
            return self.pending.answer(request_id, answer, role)
        try:
            answer = normalize_allow_always(answer, prompt.suggested_rule, found.ask == "forced")
        except ConfigError as exc:
            return RespondResult(False, str(exc))
        if answer.source not in SOURCES:
            answer = replace(answer, source="client")
        return self.pending.answer(request_id, answer, role)

    async def _via_bridge(self, prompt: PermissionPrompt) -> None:
        assert self._ui is not None
        try:
            answer = await self._ui.ask_permission(prompt)
        except Exception:  # a broken bridge is one responder less, not a decision
            _log.exception("the UI bridge failed to ask for permission")
            return
        result = self.submit(prompt.request_id, answer, "interactive")
        if not result.accepted:
            _log.info("bridge answer for %s not used: %s", prompt.request_id, result.message)
