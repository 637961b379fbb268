"""UiBridge: how the core asks a person something, whatever client they are on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from shard_core.types import JsonObject, RenderDescriptor


@dataclass(frozen=True)
class PermissionPrompt:
    request_id: str
    tool: str
    input: JsonObject
    prompt: str
    suggested_rule: str | None
    read_only: bool
    tool_call_id: str | None = None
    turn_id: str | None = None
    preview: tuple[RenderDescriptor, ...] = ()


@dataclass(frozen=True)
class PermissionAnswer:
    decision: str  # "allow" | "allow_always" | "deny"
    decided_by: str
    source: str = "client"  # "client" | "headless" | "timeout" | "abort"
    reason: str | None = None
    rule: str | None = None
    client_id: str | None = None
    """the answering client's id; `decided_by` is its label when it gave one"""
    scope: str = "agent"
    """for allow_always: "agent" (this agent only) or "workspace" (every agent in its folder)"""


@dataclass(frozen=True)
class QuestionPrompt:
    """A structured question for a person (`ask_user`): pick from `choices` (several when
    `multi`), or answer in their own words when `allow_other`."""

    question: str
    choices: tuple[str, ...]
    allow_other: bool = False
    multi: bool = False
    detail: str = ""


@dataclass(frozen=True)
class QuestionAnswer:
    values: tuple[str, ...]
    decided_by: str
    """who answered: the client's label (else its id)"""


@runtime_checkable
class QuestionBridge(Protocol):
    """A surface that can put a structured question; None: no one answered (none is there,
    or no answer came in time)."""

    async def question(self, prompt: QuestionPrompt) -> QuestionAnswer | None: ...


def question_problem(prompt: QuestionPrompt, values: list[str]) -> str | None:
    """Why `values` does not answer `prompt` (shown to whoever answered); None when it does."""
    if not values or any(not v.strip() for v in values):
        return "an answer needs at least one choice"
    if len(values) > 1 and not prompt.multi:
        return "this question takes one answer"
    if len(set(values)) != len(values):
        return "a choice is given twice"
    others = [v for v in values if v not in prompt.choices]
    if others and not prompt.allow_other:
        listed = ", ".join(repr(c) for c in prompt.choices)
        return f"{others[0]!r} is not one of the choices: {listed}"
    if len(others) > 1:
        return "at most one answer of your own words"
    return None


class UiBridge(Protocol):
    """Implemented by each surface: a terminal prompt, an SDK callback, kernel comms."""

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer: ...

    async def select(self, title: str, options: list[str], message: str = "") -> str | None: ...

    async def confirm(self, title: str, message: str = "") -> bool | None: ...

    async def input(
        self, title: str, message: str = "", default: str | None = None
    ) -> str | None: ...

    async def notify(self, title: str, message: str = "") -> None: ...
