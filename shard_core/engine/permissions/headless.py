"""The headless policy: who answers an ask when no person can (no responder, or the timeout).

Per agent, one of:

- `deny` (default): allow read-only tools, deny everything else. A read-only call allowed here
  is one that asked only because no rule covers it: a read the gate itself holds back — outside
  the workspace, under an ask rule, unanalysable — is denied, not waved through as "read-only"
  (defence in depth: the tool's own containment is the second wall, not the only one).
- `allow_if_rule_matches`: allow only when the call would be allowed with the ask layer (ask
  rules and ask votes) ignored — by an allow rule, a grant or the default policy; else deny.
- `queue`: no fallback; the question waits, without a timeout, until someone attaches and answers.

The reason is written for the model, e.g. "denied: no one to ask; rule Bash(npm test:*) would
allow it (headless policy: deny)".
"""

from __future__ import annotations

from typing import Literal

from shard_core.contracts import PermissionAnswer
from shard_core.engine.permissions.explain import Explanation

__all__ = ["HEADLESS_POLICIES", "HeadlessPolicy", "headless_answer"]

HeadlessPolicy = Literal["deny", "allow_if_rule_matches", "queue"]
HEADLESS_POLICIES: tuple[HeadlessPolicy, ...] = ("deny", "allow_if_rule_matches", "queue")


def headless_answer(
    policy: HeadlessPolicy,
    explanation: Explanation,
    *,
    read_only: bool,
    why: Literal["headless", "timeout"],
    timeout: float,
) -> PermissionAnswer | None:
    """The fallback answer, or None for `queue` (keep waiting)."""
    if policy == "queue":
        return None
    situation = "no one to ask" if why == "headless" else f"no answer within {timeout:g}s"
    by = f"headless policy: {policy}"
    would = _would_allow(explanation)
    if policy == "allow_if_rule_matches":
        if explanation.would_allow:
            reason = f"allowed: {situation}; {would} allows it ({by})"
            return PermissionAnswer("allow", by, why, reason, explanation.would_allow_rule)
        reason = f"denied: {situation} and no allow rule matches ({by})"
        return PermissionAnswer("deny", by, why, reason)
    if read_only and explanation.ask == "unruled":
        reason = f"allowed: {situation}; read-only tool ({by})"
        return PermissionAnswer("allow", by, why, reason)
    if read_only:
        reason = f"denied: {situation}; {explanation.reason} ({by})"
        return PermissionAnswer("deny", by, why, reason)
    hint = f"; {would} would allow it" if explanation.would_allow else ""
    if explanation.ask == "guarded":  # say what the gate holds back (a protected place, outside)
        hint = f"; {explanation.reason}"
    return PermissionAnswer("deny", by, why, f"denied: {situation}{hint} ({by})")


def _would_allow(explanation: Explanation) -> str:
    rule = explanation.would_allow_rule
    return f"rule {rule}" if rule else "the default policy"
