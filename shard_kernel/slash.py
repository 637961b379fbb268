"""The kernel's own slash command, `/status` (what needs the kernel: its clients and open
prompts), registered through `api.register_command` like every other; and the kernel's way in
to running any command a cell, a comm or a widget sends.

The bundled commands (`/mode`, `/help`, …) are the `shard.commands` capability; an extension's
(`/skills`, `/index`, a third party's) are its own. Nothing here lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shard_core.capabilities.commands import fenced, literal
from shard_core.capabilities.commands.builtin import help_text as _help_text
from shard_core.contracts import Extension, ExtensionApi
from shard_core.engine.slash_commands import command_names as _names
from shard_core.engine.slash_commands import run_command
from shard_kernel.terminal.render import format_usage

if TYPE_CHECKING:
    from shard_core.sdk import Agent
    from shard_kernel.agent_host import AgentHost

__all__ = ["command_names", "fenced", "help_text", "kernel_commands", "literal", "run_slash"]

KERNEL_EXTENSION = "shard.kernel"
STATUS_HELP = "status, mode, model, context use, usage, attached clients"


def kernel_commands(host: AgentHost) -> tuple[str, Extension]:
    """The extension the kernel installs into its agent: `/status`."""

    def install(api: ExtensionApi) -> None:
        api.register_command("status", STATUS_HELP, lambda _args: status_table(host))

    return KERNEL_EXTENSION, install


async def run_slash(_host: object, agent: Agent, text: str) -> str:
    """The markdown of the command `text` (a ConfigError when it is unknown or failed)."""
    return await run_command(agent.host, text)


def help_text(agent: Agent) -> str:
    return _help_text(agent.host)


def command_names(agent: Agent | None) -> list[str]:
    """Every command a cell can start with, for completion."""
    return _names(agent.host if agent is not None else None)


def status_table(host: AgentHost) -> str:
    agent = host.agent
    if agent is None:
        return "The agent has not started."
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
        ("clients", clients_line(host)),
        ("pending asks", str(len(host.pending))),
        *agent.host.status_rows(),  # the capabilities' own: a goal, todos, terminals, ...
    ]
    table = "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    notes = "".join(f"\n- {literal(line)}" for line in s.diagnostics)
    return table + (f"\n\nAt start:{notes}" if notes else "")


def clients_line(host: AgentHost) -> str:
    """Who is attached, the notebook that ran the cell included: it is someone at a screen
    even when it never opened a `shard` comm (a plain notebook on a shard kernel). A command
    sent over a comm names its sender as it attached."""
    parent: dict[str, Any] = host.current_request()
    header: dict[str, Any] = parent.get("header", {})
    cell = header.get("msg_type") == "execute_request"
    session: str | None = (header.get("session") or None) if cell else None
    interactive: list[str] = []
    observers: list[str] = []
    for client in host.clients.clients():
        name = "this notebook" if session and client.session == session else literal(client.name)
        (interactive if client.role == "interactive" else observers).append(name)
    if session and not host.clients.has_session(session):
        interactive.insert(0, "this notebook")
    return f"{_counted(interactive, 'interactive')}, {_counted(observers, 'observer')}"


def _counted(names: list[str], role: str) -> str:
    plural = "s" if role == "observer" and len(names) != 1 else ""
    listed = f" ({', '.join(names)})" if names else ""
    return f"{len(names)} {role}{plural}{listed}"
