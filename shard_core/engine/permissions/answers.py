"""Answers as data: from an explanation or a client's reply to the recorded decision and outcome.

Pure helpers for the gate: the prompt a person sees, the answer an automatic decision stands
for, how a client's `allow_always` is normalised, and the outcome handed back to the loop.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any, get_args

from pydantic import ValidationError

from shard_core.contracts import Mode, PermissionAnswer, PermissionOutcome, PermissionQuery
from shard_core.engine.permissions.explain import Explanation
from shard_core.engine.permissions.rules import parse_rule
from shard_core.types import Allow, AllowAlways, Deny, PermissionDetails
from shard_core.types.errors import ConfigError
from shard_core.types.session import DecisionSource

__all__ = [
    "DECISIONS",
    "SOURCES",
    "automatic_answer",
    "decision_details",
    "gate_deny",
    "new_request_id",
    "normalize_allow_always",
    "outcome_of",
    "prompt_text",
]

DECISIONS = ("allow", "allow_always", "deny")
SOURCES: frozenset[str] = frozenset(get_args(DecisionSource))
_SHOWN_INPUT = 300


def new_request_id() -> str:
    return f"perm-{uuid.uuid4().hex[:12]}"


def prompt_text(query: PermissionQuery, found: Explanation) -> str:
    """One line for the person asked: what the call does and why the gate asks."""
    command = query.input.get("command")
    if isinstance(command, str):
        what = command
    elif isinstance(query.input.get("path"), str):
        what = str(query.input["path"])
    else:
        what = json.dumps(query.input, sort_keys=True, default=str)
    if len(what) > _SHOWN_INPUT:
        what = what[:_SHOWN_INPUT] + "…"
    return f"Allow {query.tool}: {what}\n{found.reason}"


def automatic_answer(found: Explanation, mode: Mode | None) -> PermissionAnswer:
    """The answer an allow or deny from the layers stands for."""
    source = found.by or "rule"
    if found.rule:
        decided_by = found.rule
    elif source == "mode":
        decided_by = f"{mode.name} mode" if mode is not None else "default policy"
    else:
        decided_by = source
    decision = "allow" if found.decision == "allow" else "deny"
    return PermissionAnswer(decision, decided_by, source, found.reason, found.rule)


def gate_deny(reason: str) -> PermissionAnswer:
    """The fail-closed answer when something on the way broke."""
    return PermissionAnswer("deny", "gate", "rule", reason)


def normalize_allow_always(
    answer: PermissionAnswer, suggested: str | None, forced: bool
) -> PermissionAnswer:
    """allow_always saves a rule (the suggestion by default); under an ask rule it is allow.

    A rule that does not parse raises ConfigError, so the responder can be told.
    """
    if answer.decision != "allow_always":
        return replace(answer, rule=None) if answer.decision == "allow" else answer
    if answer.scope not in ("agent", "workspace"):
        raise ConfigError(f"unknown grant scope {answer.scope!r}; expected agent or workspace")
    if forced:
        reason = "allowed once: an ask rule always asks, so no grant was saved"
        return replace(answer, decision="allow", rule=None, reason=reason)
    rule = answer.rule or suggested
    if rule is None:
        reason = "allowed once: there is no rule to save for this call"
        return replace(answer, decision="allow", reason=reason)
    return replace(answer, rule=parse_rule(rule).text)


def decision_details(
    query: PermissionQuery, request_id: str, answer: PermissionAnswer
) -> PermissionDetails:
    """The permission entry for the session log; an answer that does not fit becomes a deny."""
    fields: dict[str, Any] = {
        "request_id": request_id,
        "tool": query.tool,
        "input": query.input,
        "decided_by": answer.decided_by,
        "rule": answer.rule,
        "tool_call_id": query.call_id,
        "client_id": answer.client_id,
        "scope": _saved_scope(answer),
    }
    try:
        return PermissionDetails.model_validate(
            {
                **fields,
                "decision": answer.decision,
                "source": answer.source,
                "reason": answer.reason,
            }
        )
    except ValidationError:
        reason = f"malformed answer ({answer.decision!r} from {answer.source!r}): denied"
        return PermissionDetails.model_validate(
            {**fields, "decision": "deny", "source": "rule", "reason": reason}
        )


def _saved_scope(answer: PermissionAnswer) -> str | None:
    if answer.decision != "allow_always" or not answer.rule:
        return None
    return "workspace" if answer.scope == "workspace" else "agent"


def outcome_of(details: PermissionDetails) -> PermissionOutcome:
    """What `authorize` returns for a recorded decision."""
    decision: Allow | AllowAlways | Deny
    if details.decision == "allow_always" and details.rule:
        decision = AllowAlways(rule=details.rule)
    elif details.decision in ("allow", "allow_always"):
        decision = Allow(rule=details.rule)
    else:
        decision = Deny(reason=_deny_reason(details), rule=details.rule)
    return PermissionOutcome(
        decision=decision,
        source=details.source,
        decided_by=details.decided_by or "unknown",
        request_id=details.request_id,
    )


def _deny_reason(details: PermissionDetails) -> str:
    if details.source == "client":
        said = f": {details.reason}" if details.reason else ""
        return f"denied by {details.decided_by}{said}"
    if details.source == "abort":
        return f"withdrawn: {details.reason or 'the question was taken back'}"
    return details.reason or "denied"
