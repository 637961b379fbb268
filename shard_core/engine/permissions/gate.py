"""RuleGate: the PermissionGate — explains a call, asks when it must, records every decision.

`authorize` never returns Ask and fails closed: an error while evaluating, asking or recording is
a deny. Asking is the Asker's job (asking.py): the first valid answer — from the UI bridge,
`respond` (the kernel's comm handler), `withdraw` or the headless policy — decides. The decision
(an allow_always grant saved first, for this agent or — scope "workspace" — for every agent
whose cwd is the same folder; grants.py) is written through `record` before `authorize` returns; if
that fails the call is denied. Then a `permission_resolved` event tells every client who decided:
after every question, and after an automatic decision that a rule or grant made (so a view can
say "allowed by rule Bash(pytest:*)"); the default policy's and a mode's routine decisions about
read-only calls stay quiet. A question carries the tool's preview of the call (preview.py).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from shard_core.contracts import (
    Mode,
    PermissionAnswer,
    PermissionOutcome,
    PermissionPrompt,
    PermissionQuery,
    Tool,
    UiBridge,
)
from shard_core.engine.config import PermissionsConfig
from shard_core.engine.events import EventStream
from shard_core.engine.permissions.announce import announce_resolved
from shard_core.engine.permissions.answers import (
    automatic_answer,
    decision_details,
    gate_deny,
    new_request_id,
    outcome_of,
    prompt_text,
)
from shard_core.engine.permissions.asking import Asker
from shard_core.engine.permissions.explain import Explanation, explain
from shard_core.engine.permissions.grants import Grant, GrantStore
from shard_core.engine.permissions.headless import HeadlessPolicy
from shard_core.engine.permissions.pending import PendingRequests, RespondResult
from shard_core.engine.permissions.pins import is_pinned_name, tool_pin
from shard_core.engine.permissions.preview import call_preview
from shard_core.engine.permissions.sources import RuleSet, SourcedRule, load_rules
from shard_core.types import Allow, Ask, Decision, Deny, PermissionDetails
from shard_core.types.errors import ConfigError

__all__ = ["Recorder", "RuleGate"]

Recorder = Callable[[PermissionDetails], Awaitable[None]]
AskHook = Callable[[PermissionPrompt], Awaitable[PermissionAnswer | None]]
_log = logging.getLogger(__name__)


WIDENING_SOURCES = frozenset({"rule", "grant", "client"})
"""Who may open a path outside the workspace for one call: an allow rule that names it by its
absolute path (the only rules that lift the outside guard), a grant, a person. Never the
headless policy, a timeout or a mode."""


def reaching(outcome: PermissionOutcome, found: Explanation) -> PermissionOutcome:
    """The outcome with the call's outside target as its reach when it was explicitly allowed:
    a rule that allows an outside path is not contradicted by the tool's containment."""
    allowed = outcome.decision.kind in ("allow", "allow_always")
    if found.outside is None or not allowed or outcome.source not in WIDENING_SOURCES:
        return outcome
    return replace(outcome, reach=(found.outside,))


class RuleGate:
    """Rules + grants + the current mode, asking through a UI bridge or `respond`."""

    def __init__(
        self,
        *,
        rules: RuleSet,
        grants: GrantStore,
        record: Recorder,
        workspace_grants: GrantStore | None = None,
        events: EventStream | None = None,
        ui: UiBridge | None = None,
        mode: Mode | None = None,
        tools: Callable[[str], Tool | None] | None = None,
        headless_policy: HeadlessPolicy = "deny",
        timeout: float = 60.0,
        has_responder: Callable[[], bool] | None = None,
        pending: PendingRequests | None = None,
    ) -> None:
        self.rules = rules
        self.grants = grants
        self.workspace_grants = workspace_grants
        self.mode = mode  # the loop swaps it on /mode
        self.asker = Asker(
            events=events,
            ui=ui,
            has_responder=has_responder or (lambda: ui is not None),
            headless_policy=headless_policy,
            timeout=timeout,
            pending=pending or PendingRequests(),
        )
        self.pending = self.asker.pending
        self._record = record
        self._events = events
        self._tools = tools
        self.before_ask: AskHook | None = None
        """the hook point that may answer a question before a person is asked (lifecycle.py)"""

    @classmethod
    def from_config(
        cls,
        config: PermissionsConfig,
        *,
        agent_id: str,
        cwd: Path,
        record: Recorder,
        trust_project: bool = False,
        allow: tuple[str, ...] = (),
        deny: tuple[str, ...] = (),
        added: RuleSet | None = None,
        given_by: str | None = None,
        **options: Any,
    ) -> RuleGate:
        """The usual wiring: every rule source, the agent's grants, the config's headless policy."""
        rules = load_rules(
            cwd,
            config,
            trust_project=trust_project,
            allow=allow,
            deny=deny,
            added=added,
            given_by=given_by,
            agent_id=agent_id,
        )
        return cls(
            rules=rules,
            grants=GrantStore(agent_id),
            workspace_grants=GrantStore.for_workspace(cwd),
            record=record,
            headless_policy=config.headless_policy,
            timeout=config.timeout,
            **options,
        )

    # -- evaluation ---------------------------------------------------------------------------

    def explain(self, query: PermissionQuery) -> Explanation:
        tool = self._tools(query.tool) if self._tools else None
        grants = [
            SourcedRule(g.rule, label)
            for store, label in self._grant_stores()
            for g in store.grants()
            if _grant_applies(g, query.tool, tool)
        ]
        return explain(query, self.rules, grants=grants, mode=self.mode, tool=tool)

    def _grant_stores(self) -> list[tuple[GrantStore, str]]:
        stores = [(self.grants, "allow-always grant")]
        if self.workspace_grants is not None:
            stores.append((self.workspace_grants, "workspace grant"))
        return stores

    def store_for(self, scope: str) -> GrantStore:
        """Where a grant of `scope` is kept; "workspace" without a workspace store is refused."""
        if scope == "agent":
            return self.grants
        if scope == "workspace" and self.workspace_grants is not None:
            return self.workspace_grants
        raise ConfigError(f"no {scope!r} grants for this agent; expected agent or workspace")

    def evaluate(self, query: PermissionQuery) -> Decision:
        """Side-effect free: what the layers say, Ask included."""
        found = self.explain(query)
        if found.decision == "allow":
            return Allow(rule=found.rule)
        if found.decision == "deny":
            return Deny(reason=found.reason, rule=found.rule)
        return Ask(
            prompt=prompt_text(query, found),
            id=new_request_id(),
            suggested_rule=found.suggested_rule,
        )

    # -- authorization ------------------------------------------------------------------------

    async def authorize(self, query: PermissionQuery) -> PermissionOutcome:
        """The final word on one call: never Ask, and any failure on the way is a deny."""
        try:
            return await self._authorize(query)
        except Exception as exc:  # the last line of fail-closed: nothing escapes as an allow
            _log.exception("permission check failed")
            return PermissionOutcome(Deny(reason=f"permission check failed: {exc}"), "rule", "gate")

    async def _authorize(self, query: PermissionQuery) -> PermissionOutcome:
        request_id = new_request_id()
        try:
            found = self.explain(query)
        except Exception as exc:  # fail closed, whatever broke
            _log.exception("permission evaluation failed")
            reason = f"could not evaluate the permission rules: {exc}"
            return await self._settle(query, request_id, gate_deny(reason), asked=False)
        if found.decision != "ask":
            answer = automatic_answer(found, self.mode)
            return reaching(await self._settle(query, request_id, answer, asked=False), found)
        return reaching(await self._ask(query, request_id, found), found)

    async def _ask(
        self, query: PermissionQuery, request_id: str, found: Explanation
    ) -> PermissionOutcome:
        prompt = PermissionPrompt(
            request_id=request_id,
            tool=query.tool,
            input=query.input,
            prompt=prompt_text(query, found),
            suggested_rule=found.suggested_rule,
            read_only=query.read_only,
            tool_call_id=query.call_id,
            turn_id=query.turn_id,
            preview=await call_preview(self._tools(query.tool) if self._tools else None, query),
        )
        answer = await self._hook_answer(prompt, found) or await self.asker.ask(prompt, found)
        return await self._settle(query, request_id, answer, asked=True)

    async def _hook_answer(
        self, prompt: PermissionPrompt, found: Explanation
    ) -> PermissionAnswer | None:
        """A PermissionRequest hook's allow or deny. Fails closed: a hook that raises answers
        nothing (a person or the headless policy is asked), and a rule that always asks is
        never answered by a hook's allow."""
        if self.before_ask is None:
            return None
        try:
            answer = await self.before_ask(prompt)
        except Exception:
            _log.exception("a PermissionRequest hook failed")
            return None
        if answer is None or (answer.decision != "deny" and found.ask == "forced"):
            return None
        return answer if answer.decision in ("allow", "deny") else None

    async def _settle(
        self, query: PermissionQuery, request_id: str, answer: PermissionAnswer, *, asked: bool
    ) -> PermissionOutcome:
        answer, granted = self._save_grant(answer, query)
        details = decision_details(query, request_id, answer)
        try:
            await self._record(details)
        except Exception as exc:
            _log.exception("recording a permission decision failed")
            reason = f"could not record the decision durably: {exc}"
            overridden = {
                "decision": "deny",
                "source": "rule",
                "decided_by": "gate",
                "reason": reason,
                "rule": None,
                "client_id": None,
                "scope": None,
            }
            details = details.model_copy(update=overridden)
            if granted:
                self._forget_grant(granted, answer.scope)
        if asked or details.rule:
            announce_resolved(self._events, request_id, details)
        return outcome_of(details)

    def _save_grant(
        self, answer: PermissionAnswer, query: PermissionQuery
    ) -> tuple[PermissionAnswer, str | None]:
        """Store an allow_always rule; returns the rule if it is new (to undo on failure). An
        MCP tool's grant is pinned to the description and schema the person saw (pins.py)."""
        if answer.decision != "allow_always" or not answer.rule:
            return answer, None
        tool = self._tools(query.tool) if self._tools and is_pinned_name(query.tool) else None
        pins = {query.tool: tool_pin(tool)} if tool is not None else None
        try:
            store = self.store_for(answer.scope)
            known = {g.text for g in store.grants()}
            grant = store.add(answer.rule, answer.decided_by, pins)
        except (ConfigError, OSError) as exc:
            reason = f"allowed once; the grant could not be saved: {exc}"
            return replace(answer, decision="allow", reason=reason), None
        saved = f"saved for {_scope_words(store, grant.text)}"
        reason = f"{saved}; {answer.reason}" if answer.reason else saved
        answer = replace(answer, reason=reason, scope=store.scope)
        return answer, None if grant.text in known else grant.text

    def _forget_grant(self, rule: str, scope: str) -> None:
        try:
            self.store_for(scope).revoke(rule)
        except (ConfigError, OSError):
            _log.exception("could not undo grant %s", rule)

    # -- answers from outside -----------------------------------------------------------------

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
        """A client's answer (the kernel's comm handler calls this); the first valid one wins.

        `decision` is allow | allow_always | deny; `role` must be "interactive". allow_always
        saves `rule`, or the suggested rule when none is given, for `scope`: "agent" (this
        agent) or "workspace" (every agent whose cwd is this folder). `label` is the client's name
        for people ("alice · Tab 2"): it becomes `decided_by`, and `client_id` is kept beside it.
        """
        return self.asker.respond(request_id, decision, client_id, role, reason, rule, label, scope)

    def withdraw(
        self, request_id: str, reason: str = "withdrawn", by: str = "abort"
    ) -> RespondResult:
        """Take a question back (an interrupted turn): the call is denied, source "abort"."""
        return self.asker.withdraw(request_id, reason, by)


def _scope_words(store: GrantStore, rule: str) -> str:
    """ "this workspace: Edit(src/**) (every agent in /w)" or "this agent: Edit(src/**)"."""
    if store.scope == "workspace":
        return f"this workspace: {rule} (every agent in {store.workspace})"
    return f"this agent: {rule}"


def _grant_applies(grant: Grant, name: str, tool: Tool | None) -> bool:
    """An MCP grant counts only for a tool whose description and schema are those approved."""
    if not is_pinned_name(name) or not is_pinned_name(grant.rule.tool):
        return True
    return tool is not None and grant.pins.get(name) == tool_pin(tool)
