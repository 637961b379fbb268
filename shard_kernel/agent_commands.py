"""The per-agent commands every transport handles the same way (kernel comms, stdio JSONL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shard_core.protocol.commands import (
    Command,
    CommandReply,
    HeartbeatCommand,
    InjectCommand,
    ListCommandsCommand,
    PermissionResponseCommand,
    RewindCommand,
    SetModeCommand,
    SetTitleCommand,
    SlashCommand,
    SlashCommandInfo,
    SteerCommand,
)

if TYPE_CHECKING:
    from shard_core.sdk import Agent


def answer_permission(
    agent: Agent, command: PermissionResponseCommand, role: str, label: str | None = None
) -> CommandReply:
    """First valid answer wins; later ones (and observers) are told why not. The answer names
    its client by the command's label, else `label` (the one it attached with)."""
    result = agent.gate.respond(
        command.request_id,
        command.decision,
        command.client_id,
        role,
        reason=command.reason,
        rule=command.rule,
        label=command.label or label,
        scope=command.scope,
    )
    return CommandReply(command="permission_response", ok=result.accepted, message=result.message)


def run_common(
    agent: Agent, command: Command, role: str, label: str | None = None
) -> CommandReply | None:
    """The reply for a command every transport treats alike, or None for the others."""
    if isinstance(command, PermissionResponseCommand):
        return answer_permission(agent, command, role, label)
    if isinstance(command, SteerCommand):
        steer_id = agent.steer(
            command.text,
            command.images,
            steer_id=command.steer_id,
            replace=command.replace,
            queue=command.queue,
        )
        # the outcome is the steer_receipt event every client gets, not this reply
        return CommandReply(command="steer", ok=True, message="sent", data={"steer_id": steer_id})
    if isinstance(command, InjectCommand):
        entry_id = agent.inject(command.text, command.kind, command.label)
        message = "logged" if entry_id else "waits for the running turn's next request"
        return CommandReply(command="inject", ok=True, message=message, data={"entry_id": entry_id})
    if isinstance(command, SetTitleCommand):
        title = agent.set_title(command.title)
        return CommandReply(command="set_title", ok=True, message=title)
    if isinstance(command, SetModeCommand):
        agent.set_mode(command.mode)
        return CommandReply(command="set_mode", ok=True, message=command.mode)
    if isinstance(command, RewindCommand):
        from shard_kernel.rewind_command import run_rewind  # only when a rewind is asked for

        return run_rewind(agent, command, role)
    if isinstance(command, ListCommandsCommand):
        return list_commands(agent)
    if isinstance(command, HeartbeatCommand):
        return CommandReply(command="heartbeat", ok=True)
    return None


def list_commands(agent: Agent) -> CommandReply:
    """Every slash command the agent has (bundled, the surface's, each extension's), by name."""
    commands = [
        SlashCommandInfo(
            name=f"/{c.name}", description=c.description, extension=c.extension, hint=c.hint
        )
        for c in agent.host.commands()
    ]
    return CommandReply(
        command="list_commands",
        ok=True,
        message=f"{len(commands)} commands",
        data={"commands": [c.model_dump(mode="json") for c in commands]},
    )


async def run_slash_command(
    agent: Agent, command: SlashCommand, client_id: str | None, label: str | None
) -> CommandReply:
    """Runs it; every client sees its `command_output` event, the sender also this reply."""
    event = await agent.command(
        command.text, client_id=command.client_id or client_id, label=command.label or label
    )
    return CommandReply(
        command="slash", ok=event.ok, message=event.markdown, data={"seq": event.seq}
    )
