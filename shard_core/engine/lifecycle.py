"""The session's lifecycle hook points, as the loop and the assembly call them.

Each function builds one point's input from the session (`hook_points.py` says what a handler
may answer) and applies the answer: a start's context is injected, a Stop handler's block
becomes the agent's next instruction (bounded), an ask's allow or deny answers the gate's
question. The tool points are awaited by the step itself (`step.py`).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.engine.hook_points import (
    HOOK_LABEL,
    AskCheck,
    CompactCheck,
    HookPlace,
    HookPoints,
    HookVerdict,
    SessionCheck,
    StopCheck,
)
from shard_core.types import ContextKind


class HookedSession(Protocol):
    """What of the session these need (the session, without importing it)."""

    hook_points: HookPoints

    def hook_place(self, turn_id: str | None = None) -> HookPlace: ...

    def inject(
        self, text: str, kind: ContextKind = "note", label: str | None = None
    ) -> str | None: ...

    def emit_status(self, message: str | None = None) -> Any: ...


async def session_started(session: HookedSession, resumed: bool) -> None:
    """SessionStart: once, when the agent is assembled (its source: startup, or resume when its
    log already had entries); its context reaches the next request."""
    source = "resume" if resumed else "startup"
    verdict = await session.hook_points.session_start(SessionCheck(session.hook_place(), source))
    if verdict.context:
        session.inject(verdict.context, "note", HOOK_LABEL)


async def session_ended(session: HookedSession, reason: str = "other") -> None:
    """SessionEnd: once, when the agent closes (before its extensions are disposed)."""
    await session.hook_points.session_end(SessionCheck(session.hook_place(), reason))


async def before_compact(session: HookedSession, reason: str) -> None:
    trigger: Literal["manual", "auto"] = "manual" if reason == "manual" else "auto"
    await session.hook_points.before_compact(CompactCheck(session.hook_place(), trigger, reason))


async def go_on(session: HookedSession, turn_id: str, continued: int, bound: int) -> HookVerdict:
    """Whether a Stop handler keeps the agent going: a verdict whose `block` says go on, with
    the reason as the next instruction. Past `max_stop_continuations` it never does, and the
    status says the bound was hit."""
    check = StopCheck(session.hook_place(turn_id), active=continued > 0)
    verdict = await session.hook_points.before_stop(check)
    if verdict.halt is not None or not verdict.block:
        return verdict
    if continued >= bound:
        session.emit_status(
            f"a Stop hook asked the agent to go on again; the bound of {bound} continuations "
            "(max_stop_continuations) is hit, so the turn ends"
        )
        return HookVerdict()
    return verdict


async def ask_hooks(session: HookedSession, prompt: PermissionPrompt) -> PermissionAnswer | None:
    """A BEFORE_ASK handler's answer to the gate's question, or None to ask as usual."""
    check = AskCheck(
        session.hook_place(prompt.turn_id),
        tool=prompt.tool,
        input=prompt.input,
        call_id=prompt.tool_call_id,
        prompt=prompt.prompt,
    )
    verdict = await session.hook_points.before_ask(check)
    if verdict is None:
        return None
    decision = "deny" if verdict.block else "allow"
    reason = verdict.reason or f"{decision} by a PermissionRequest hook"
    return PermissionAnswer(decision, "PermissionRequest hook", "hook", reason)
