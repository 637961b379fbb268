"""Slash commands in a shard cell: /mode, /compact, /recall, /fork, /status, /grants,
/extensions, /help, and every command an extension registered (`api.register_command`: /skills
comes from the skills capability)."""

from __future__ import annotations

import inspect
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from shard_core.contracts import ToolContext
from shard_core.engine.plurals import counted
from shard_core.types.errors import ConfigError
from shard_kernel.terminal.render import format_usage

if TYPE_CHECKING:
    from shard_core.sdk import Agent
    from shard_kernel.kernel import ShardKernel

SLASH_COMMANDS = (
    "/mode",
    "/compact",
    "/recall",
    "/fork",
    "/status",
    "/grants",
    "/extensions",
    "/title",
    "/help",
)

HELP = """**Shard cell commands** (anything else is a prompt to the agent)

| command | what it does |
|---|---|
| `/mode plan` · `/mode build` | switch mode (plan: read-only tools, ends with a plan) |
| `/compact` | compact the conversation now (deterministic, no model call) |
| `/recall QUERY` | search everything this agent ever did |
| `/fork [ENTRY_ID]` | copy the conversation into a new session from an entry |
| `/status` | status, mode, model, context use, usage, attached clients |
| `/grants` · `/grants revoke RULE` | list or revoke "always allow" grants |
| `/extensions` | the extensions installed and what each registered, replaced or failed |
| `/title` · `/title TEXT` | show or set the session's title |
| `/help` | this table |
"""


async def run_slash(kernel: ShardKernel, agent: Agent, text: str) -> str:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"could not parse {text!r}: {exc}") from None
    name, args = words[0], words[1:]
    if name in SLASH_COMMANDS:
        return await _builtin(kernel, agent, name, args)
    command = agent.host.command(name)
    if command is None:
        raise ConfigError(f"unknown command {name}; try /help")
    try:
        result = command.handler(args)
        return await result if inspect.isawaitable(result) else result
    except ConfigError:
        raise
    except Exception as exc:  # an extension's command failing is its output, not a crash
        raise ConfigError(
            f"{name} (from extension {command.extension}) failed: {type(exc).__name__}: {exc}"
        ) from None


async def _builtin(kernel: ShardKernel, agent: Agent, name: str, args: list[str]) -> str:
    if name == "/compact":
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
    if name == "/recall":
        return await _recall(agent, " ".join(args))
    if name == "/fork":
        session_id = agent.fork(args[0] if args else None)
        return f"Forked into `{session_id}`; continue it with `shard run --resume {session_id}`."
    simple: dict[str, Callable[[], str]] = {
        "/help": lambda: help_text(agent),
        "/mode": lambda: _mode(agent, args),
        "/status": lambda: _status(kernel, agent),
        "/grants": lambda: _grants(agent, args),
        "/extensions": lambda: _extensions(agent),
        "/title": lambda: _title(agent, args),
    }
    return simple[name]()


def help_text(agent: Agent) -> str:
    """The built-in table, then the commands extensions registered."""
    rows = [
        f"| `/{c.name}` | {literal(c.description)} (extension {literal(c.extension)}) |"
        for c in agent.host.commands()
        if f"/{c.name}" not in SLASH_COMMANDS
    ]
    return HELP + "\n".join(rows) + ("\n" if rows else "")


def command_names(agent: Agent | None) -> list[str]:
    """Every command a cell can start with, for completion."""
    registered = [f"/{c.name}" for c in agent.host.commands()] if agent is not None else []
    return [*SLASH_COMMANDS, *(n for n in registered if n not in SLASH_COMMANDS)]


def _title(agent: Agent, args: list[str]) -> str:
    if not args:
        return f"Title: {literal(agent.title)}" if agent.title else "No title yet."
    return f"Title set: {literal(agent.set_title(' '.join(args)))}"


def _mode(agent: Agent, args: list[str]) -> str:
    modes = ", ".join(f"`{m}`" for m in sorted(agent.session.modes))
    if not args:
        return f"Mode: **{agent.session.mode}** (available: {modes})"
    agent.set_mode(args[0])
    return f"Mode: **{agent.session.mode}**"


async def _recall(agent: Agent, query: str) -> str:
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
    args: dict[str, object] = {"scope": "all"}
    if query:
        args["query"] = query
    result = await tool.execute(args, ctx)
    return fenced(result.text)


def fenced(text: str) -> str:
    """A code block that no backtick run inside `text` can close: session text (which tools
    and models wrote) stays text when Jupyter renders the markdown as HTML."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _status(kernel: ShardKernel, agent: Agent) -> str:
    s = agent.session
    meter = s.meter
    rows = [
        ("agent", s.agent_id),
        ("status", s.status),
        ("mode", s.mode),
        ("model", s.provider.model + (" (scripted demo)" if s.config.demo else "")),
        ("session", s.store.session_id),
        ("cwd", str(s.config.cwd)),
        (
            "context",
            f"{meter.context_tokens} / {meter.context_window} tokens ({meter.fraction:.0%})",
        ),
        ("usage", format_usage(meter.total)),
        ("clients", clients_line(kernel)),
        ("pending asks", str(len(kernel.pending))),
    ]
    table = "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    notes = "".join(f"\n- {literal(line)}" for line in s.diagnostics)
    return table + (f"\n\nAt start:{notes}" if notes else "")


def clients_line(kernel: ShardKernel) -> str:
    """Who is attached, the notebook that ran the cell included: it is someone at a screen
    even when it never opened a `shard` comm (a plain notebook on a shard kernel)."""
    parent: dict[str, Any] = kernel.get_parent("shell") or {}
    session: str | None = parent.get("header", {}).get("session") or None
    interactive: list[str] = []
    observers: list[str] = []
    for client in kernel.clients.clients():
        name = "this notebook" if session and client.session == session else literal(client.name)
        (interactive if client.role == "interactive" else observers).append(name)
    if session and not kernel.clients.has_session(session):
        interactive.insert(0, "this notebook")
    return f"{_counted(interactive, 'interactive')}, {_counted(observers, 'observer')}"


def literal(text: str) -> str:
    """`text` as itself in markdown: clients name themselves, and a name must not become a
    link, a tag or a table cell border (every ASCII punctuation mark backslash-escaped)."""
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def _counted(names: list[str], role: str) -> str:
    plural = "s" if role == "observer" and len(names) != 1 else ""
    listed = f" ({', '.join(names)})" if names else ""
    return f"{len(names)} {role}{plural}{listed}"


def _grants(agent: Agent, args: list[str]) -> str:
    store = agent.gate.grants
    if args[:1] == ["revoke"]:
        if len(args) != 2:
            raise ConfigError("usage: /grants revoke RULE")
        removed = store.revoke(args[1])
        return f"Revoked `{args[1]}`." if removed else f"No grant `{args[1]}`."
    grants = store.grants()
    if not grants:
        return "No grants: nothing is always allowed for this agent."
    return "\n".join(f"- `{g.text}` (granted by {g.granted_by})" for g in grants)


def _extensions(agent: Agent) -> str:
    from shard_kernel.commands.extensions import extensions_table  # the CLI's, loaded on use

    return extensions_table(agent.host)
