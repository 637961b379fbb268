"""AcpAsker: the UiBridge that puts every question of Shard's gate to the ACP host.

The gate decides first (deny rules, grants, allow rules, the mode, the headless policy when no
one can answer); what it still asks becomes a `session/request_permission` carrying the tool
call (kind, title, paths, raw input) with its preview — the edit's diff, the command — and four
options: allow once, allow always (the grant Shard saves; its name says the rule), reject once,
reject always (the same rule added as a deny rule for this agent, saved in its own rule file
`SHARD_HOME/agents/<id>/rules.json`, so a resumed or reloaded session still denies it; its name
says so). A request the host cancels, or cannot answer, is a denial.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from shard_core.contracts import PermissionAnswer, PermissionPrompt
from shard_core.contracts.tool import tool_kind
from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt
from shard_core.engine.permissions.sources import RuleSet, add_agent_rule
from shard_core.protocol.events import PermissionRequestEvent
from shard_core.sdk import Agent
from shard_core.types.content import ToolKind
from shard_core.types.errors import ConfigError
from shard_kernel.acp.questions import ask_question
from shard_kernel.acp.updates import locations_of, preview_content, title_of

_log = logging.getLogger("shard.acp")

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"


def permission_options(rule: str | None) -> list[PermissionOption]:
    """The four ACP options; without a rule to save, only the two that save nothing."""
    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if rule:
        options.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS, name=f"Always allow {rule}", kind="allow_always"
            )
        )
    options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
    if rule:
        options.append(
            PermissionOption(
                option_id=REJECT_ALWAYS, name=f"Always deny {rule}", kind="reject_always"
            )
        )
    return options


def permission_call(
    asked: PermissionPrompt | PermissionRequestEvent, cwd: Path, kind: ToolKind
) -> ToolCallUpdate:
    """The tool call a `session/request_permission` is about, with the call's preview."""
    return ToolCallUpdate(
        tool_call_id=asked.tool_call_id or asked.request_id,
        title=title_of(asked.tool, asked.input),
        kind=kind,
        status="pending",
        locations=locations_of(asked.input, cwd),
        raw_input=asked.input,
        content=preview_content(asked.preview, cwd) or None,
        field_meta={"shard": {"requestId": asked.request_id, "prompt": asked.prompt}},
    )


class AcpAsker:
    """Asks the host; `flush` first sends every update queued before the question."""

    def __init__(
        self,
        session_id: str,
        client: Client,
        host: str,
        flush: Callable[[], Awaitable[None]],
    ) -> None:
        self.session_id = session_id
        self.client = client
        self.host = host
        self.flush = flush
        self.agent: Agent | None = None  # bound once the agent exists (reject_always adds to it)
        self.elicitation = False
        """the host declared form elicitation: ask_user asks with a form (questions.py)"""

    async def ask_permission(self, prompt: PermissionPrompt) -> PermissionAnswer:
        await self.flush()
        agent = self.agent
        cwd = agent.session.config.cwd if agent is not None else Path.cwd()
        tool = agent.session.tools.get(prompt.tool) if agent is not None else None
        call = permission_call(prompt, cwd, tool_kind(tool))
        rule = prompt.suggested_rule
        try:
            response = await self.client.request_permission(
                session_id=self.session_id,
                tool_call=call,
                options=permission_options(rule),
            )
        except Exception as exc:  # the host failed or went away: a denial, said so
            _log.warning("acp: request_permission failed: %s", exc)
            return self._deny(f"the ACP host did not answer: {exc}")
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return self._deny("the ACP host cancelled the permission request")
        choice = outcome.option_id
        if choice == ALLOW_ONCE:
            return PermissionAnswer("allow", self.host)
        if choice == ALLOW_ALWAYS and rule:
            return PermissionAnswer("allow_always", self.host, rule=rule)
        if choice == REJECT_ALWAYS and rule:
            return self._deny(self._add_deny(rule))
        if choice == REJECT_ONCE:
            return self._deny("rejected in the ACP host")
        return self._deny(f"the ACP host chose an option that was not offered: {choice!r}")

    def _deny(self, reason: str) -> PermissionAnswer:
        return PermissionAnswer("deny", self.host, reason=reason)

    def _add_deny(self, rule: str) -> str:
        """Deny `rule` from now on (saved for the agent); returns the denial's reason."""
        if self.agent is None:
            return "rejected in the ACP host"
        try:
            added = add_agent_rule(self.agent.session.agent_id, "deny", rule)
        except (ConfigError, OSError) as exc:
            added = RuleSet.parse(f"reject_always in {self.host}", deny=[rule])
            self.agent.gate.rules = added + self.agent.gate.rules
            return f"denied always for this session: {rule} (it could not be saved: {exc})"
        self.agent.gate.rules = added + self.agent.gate.rules
        return f"denied always: {rule} is now a deny rule for this agent (saved)"

    async def question(self, prompt: QuestionPrompt) -> QuestionAnswer | None:
        """ask_user: a permission request whose options are the choices (questions.py)."""
        await self.flush()
        request_id = f"question-{uuid.uuid4().hex[:12]}"
        return await ask_question(self.client, self.session_id, self.host, prompt, request_id,
                                  form=self.elicitation)  # fmt: skip

    async def select(self, title: str, options: list[str], message: str = "") -> str | None:
        return None  # ACP has no question of this kind: unanswered, as with no one there

    async def confirm(self, title: str, message: str = "") -> bool | None:
        return None

    async def input(self, title: str, message: str = "", default: str | None = None) -> str | None:
        return default

    async def notify(self, title: str, message: str = "") -> None:
        _log.info("acp: %s %s", title, message)
