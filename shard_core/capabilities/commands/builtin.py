"""BuiltinCommands: the extension `shard.commands`. Its commands act on the agent they are
bound to after assembly (`bind`): the ExtensionApi registers them, the agent they steer exists
only once every extension is installed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from shard_core.capabilities.commands.markdown import extensions_table, fenced, literal
from shard_core.contracts import ExtensionApi, Mode, ToolContext, ToolRegistry
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions.gate import RuleGate
from shard_core.engine.permissions.grants import GrantStore
from shard_core.engine.permissions.sources import (
    AGENT_RULES_LABEL,
    add_agent_rule,
    agent_rules_path,
)
from shard_core.engine.plurals import counted
from shard_core.engine.session_config import SessionConfig
from shard_core.engine.session_store import SessionStore
from shard_core.engine.usage import UsageMeter
from shard_core.protocol.events import CompactionEvent
from shard_core.types.errors import ConfigError

HELP_HEADING = "**Shard cell commands** (anything else is a prompt to the agent)"
HINTS = {
    "mode": "[plan|build]",
    "recall": "QUERY",
    "fork": "[ENTRY_ID]",
    "grants": "[revoke RULE]",
    "deny": "[RULE]",
    "title": "[TEXT]",
}
"""what goes after each bundled command's name (ACP shows it as the command's input hint)"""


class CommandSession(Protocol):
    """What the bundled commands use of an agent's session (AgentSession is one)."""

    @property
    def config(self) -> SessionConfig: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def modes(self) -> Mapping[str, Mode]: ...
    @property
    def mode(self) -> str: ...
    @property
    def meter(self) -> UsageMeter: ...
    @property
    def agent_id(self) -> str: ...
    @property
    def running(self) -> bool: ...

    async def compact(
        self, reason: str = "manual", *, force: bool = False
    ) -> CompactionEvent | None: ...


class CommandTarget(Protocol):
    """What the bundled commands use of an agent (the SDK's Agent is one)."""

    @property
    def session(self) -> CommandSession: ...

    host: ExtensionHost
    gate: RuleGate

    @property
    def title(self) -> str | None: ...

    def set_title(self, title: str) -> str: ...

    def set_mode(self, name: str) -> None: ...

    def fork(self, entry_id: str | None = None) -> str: ...


Handler = Callable[[CommandTarget, list[str]], "str | Awaitable[str]"]


class BuiltinCommands:
    """`host.install("shard.commands", commands)`, then `commands.bind(agent)`."""

    def __init__(self) -> None:
        self.target: CommandTarget | None = None

    def bind(self, target: CommandTarget) -> None:
        self.target = target

    def __call__(self, api: ExtensionApi) -> None:
        table: list[tuple[str, str, Handler]] = [
            (
                "mode",
                "show the mode; `/mode plan` (read-only tools, ends with a plan) or `/mode build`"
                " switches it",
                _mode,
            ),
            ("compact", "compact the conversation now (deterministic, no model call)", _compact),
            ("recall", "`/recall QUERY`: search everything this agent ever did", _recall),
            ("fork", "`/fork [ENTRY_ID]`: copy the conversation into a new session", _fork),
            (
                "grants",
                "list the \"always allow\" grants (this agent's and this workspace's); "
                "`/grants revoke RULE` revokes one",
                _grants,
            ),
            (
                "extensions",
                "the extensions installed and what each registered, replaced or failed",
                lambda agent, _args: extensions_table(agent.host),
            ),
            (
                "deny",
                "list this agent's own deny rules; `/deny RULE` adds one (saved with the agent:"
                " it still denies after a resume)",
                _deny,
            ),
            ("title", "show the session's title; `/title TEXT` sets it", _title),
            ("help", "this table", lambda agent, _args: help_text(agent.host)),
        ]
        for name, description, handler in table:
            hint = HINTS.get(name, "")
            api.register_command(name, description, self._bound(handler), hint=hint)

    def _bound(self, handler: Handler) -> Callable[[list[str]], str | Awaitable[str]]:
        def run(args: list[str]) -> str | Awaitable[str]:
            if self.target is None:
                raise ConfigError("the agent is still starting: try again in a moment")
            return handler(self.target, args)

        return run


def help_text(host: ExtensionHost) -> str:
    """Every registered command, the bundled ones and each extension's, by name."""
    rows = [
        f"| `/{c.name}` | {literal(c.description)} (extension {literal(c.extension)}) |"
        for c in host.commands()
    ]
    return f"{HELP_HEADING}\n\n| command | what it does |\n|---|---|\n" + "\n".join(rows) + "\n"


async def _compact(agent: CommandTarget, args: list[str]) -> str:
    if agent.session.running:
        return "Busy: compaction runs between turns; try again when the turn has ended."
    event = await agent.session.compact("manual")
    if event is None:
        tokens = agent.session.meter.context_tokens
        return (
            f"Nothing worth folding: a summary would not make the context "
            f"(~{tokens:,} tokens) smaller."
        )
    return (
        f"Compaction {event.index}: {counted(event.entries_folded, 'entry')} folded, "
        f"{event.tokens_before} → {event.tokens_after} tokens."
    )


def _fork(agent: CommandTarget, args: list[str]) -> str:
    session_id = agent.fork(args[0] if args else None)
    return f"Forked into `{session_id}`; continue it with `shard run --resume {session_id}`."


def _title(agent: CommandTarget, args: list[str]) -> str:
    if not args:
        return f"Title: {literal(agent.title)}" if agent.title else "No title yet."
    return f"Title set: {literal(agent.set_title(' '.join(args)))}"


def _mode(agent: CommandTarget, args: list[str]) -> str:
    modes = ", ".join(f"`{m}`" for m in sorted(agent.session.modes))
    if not args:
        return f"Mode: **{agent.session.mode}** (available: {modes})"
    agent.set_mode(args[0])
    return f"Mode: **{agent.session.mode}**"


async def _recall(agent: CommandTarget, args: list[str]) -> str:
    tool = agent.session.tools.get("recall")
    if tool is None:
        return "Recall is not available for this agent."
    s = agent.session
    ctx = ToolContext(
        cwd=s.config.cwd,
        roots=s.config.roots,
        agent_id=s.agent_id,
        session_id=s.store.session_id,
        call_id="slash-recall",
    )
    query = " ".join(args)
    arguments: dict[str, object] = {"scope": "all"}
    if query:
        arguments["query"] = query
    result = await tool.execute(arguments, ctx)
    return fenced(result.text)


def _grants(agent: CommandTarget, args: list[str]) -> str:
    """Both scopes: this agent's grants, then its workspace's (every agent in the folder)."""
    stores = [agent.gate.grants]
    if agent.gate.workspace_grants is not None:
        stores.append(agent.gate.workspace_grants)
    if args[:1] == ["revoke"]:
        if len(args) < 2:
            raise ConfigError("usage: /grants revoke RULE")
        rule = " ".join(args[1:])
        revoked = [_scope_name(store) for store in stores if store.revoke(rule)]
        if not revoked:
            return f"No grant `{rule}`."
        return f"Revoked `{rule}` (scope: {', '.join(revoked)})."
    lines = [
        f"- `{g.text}` (scope: {_scope_name(store)}; granted by {g.granted_by})"
        for store in stores
        for g in store.grants()
    ]
    if not lines:
        return "No grants: nothing is always allowed for this agent or this workspace."
    return "\n".join(lines)


def _deny(agent: CommandTarget, args: list[str]) -> str:
    """`/deny RULE`: a deny rule for this agent from now on, in its own rule file."""
    agent_id = agent.session.agent_id
    if not args:
        own = [r for r in agent.gate.rules.deny if r.source.startswith(AGENT_RULES_LABEL)]
        if not own:
            return "No deny rules of this agent's own (`/deny RULE` adds one)."
        return "\n".join(f"- `{r.text}`" for r in own) + f"\n\n({agent_rules_path(agent_id)})"
    rule = " ".join(args)
    added = add_agent_rule(agent_id, "deny", rule)
    known = {r.text for r in agent.gate.rules.deny}
    if all(r.text in known for r in added.deny):
        return f"`{added.deny[0].text}` is already denied."
    agent.gate.rules = added + agent.gate.rules
    return f"Denied from now on: `{added.deny[0].text}` (saved in {agent_rules_path(agent_id)})."


def _scope_name(store: GrantStore) -> str:
    return f"workspace {store.workspace}" if store.scope == "workspace" else "this agent"
