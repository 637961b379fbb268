"""The `rewind` per-agent command (REST, comms, stdio): the agent's checkpoints service."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shard_core.capabilities.checkpoints import Outcome, RewindError
from shard_core.protocol.commands import CommandReply, RewindCommand

if TYPE_CHECKING:
    from shard_core.sdk import Agent


def run_rewind(agent: Agent, command: RewindCommand, role: str) -> CommandReply:
    def refused(message: str) -> CommandReply:
        return CommandReply(command="rewind", ok=False, message=message)

    if agent.checkpoints is None:
        return refused("this agent keeps no checkpoints")
    if command.action not in ("list", "diff") and role != "interactive":
        return refused(f"a {role} client cannot change files: attach as interactive")
    try:
        service = agent.checkpoints.checkpoints()
        if command.action == "list":
            return CommandReply(command="rewind", ok=True, message=service.turns_table())
        turn = command.turn
        if turn is None and command.target and command.action in ("diff", "revert"):
            turn = service.turn_number(command.target)
        if command.action == "diff":
            outcome = service.review(turn)
        elif command.action == "undo":
            outcome = service.undo(command.choice)
        elif command.action == "revert":
            if not command.path:
                return refused("revert needs a path")
            outcome = service.revert(
                command.path, turn=turn, hunk=command.hunk, cell=command.cell,
                force=command.choice == "force",
            )  # fmt: skip
        else:
            if not command.target:
                return refused("rewind needs a target: a turn number or an entry id")
            outcome = service.rewind(command.target, command.scope, command.choice)
    except RewindError as exc:
        return refused(str(exc))
    return _reply(outcome)


def _reply(outcome: Outcome) -> CommandReply:
    data: dict[str, object] = {}
    if outcome.render is not None:
        data["render"] = [d.model_dump(mode="json", by_alias=True) for d in outcome.render]
    if outcome.review is not None:
        data["review"] = outcome.review.model_dump(mode="json", by_alias=True)
    result = outcome.result
    if result is None:
        return CommandReply(command="rewind", ok=True, message=outcome.text, data=data)
    data.update(
        applied=result.applied,
        entry_id=result.entry_id,
        restored=result.restored,
        kept=result.kept,
        failed=result.failed,
        conflicts=[p.path for p in result.conflicts],
    )
    ok = result.applied and not result.failed
    return CommandReply(command="rewind", ok=ok, message=outcome.text, data=data)
