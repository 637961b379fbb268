"""Restart = resume: what a previous agent process left unfinished, closed out and announced."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from shard_core.contracts.access import CommandAccess
from shard_core.engine.access import access_for
from shard_core.engine.event_log import EventLog
from shard_core.engine.state import shard_home
from shard_core.protocol.events import (
    Event,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    RestartedEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from shard_core.tools.bash import OWNER_VARIABLE
from shard_core.tools.environment import HOME_VARIABLE

if TYPE_CHECKING:
    from shard_core.sdk import Agent

LOOKBACK = 5000


@dataclass
class Dangling:
    turn_id: str | None = None
    calls: dict[str, str] = field(default_factory=dict[str, str])
    asks: dict[str, PermissionRequestEvent] = field(
        default_factory=dict[str, PermissionRequestEvent]
    )


def find_dangling(events: list[Event]) -> Dangling:
    state = Dangling()
    for event in events:
        if isinstance(event, TurnStartEvent):
            state = Dangling(turn_id=event.turn_id)
        elif isinstance(event, TurnEndEvent):
            state = Dangling()
        elif isinstance(event, ToolCallEvent):
            access = access_for(event.call.name)
            arg = access.arg if isinstance(access, CommandAccess) else None
            command = event.call.input.get(arg) if arg else None
            state.calls[event.call.id] = f"a running {event.call.name}" + (
                f": {command}" if command else ""
            )
        elif isinstance(event, ToolResultEvent):
            state.calls.pop(event.tool_call_id, None)
        elif isinstance(event, PermissionRequestEvent):
            state.asks[event.request_id] = event
        elif isinstance(event, PermissionResolvedEvent):
            state.asks.pop(event.request_id, None)
    return state


def kill_orphans(agent_id: str) -> list[str]:
    """End process groups a previous process of this agent left running (after a SIGKILL the
    tools' groups survive it). They carry SHARD_AGENT_ID=<agent_id> and SHARD_AGENT_HOME=<this
    SHARD_HOME> in their environment: the id alone is another home's agent of the same name."""
    markers = [
        f"{OWNER_VARIABLE}={agent_id}".encode() + b"\0",
        f"{HOME_VARIABLE}={shard_home()}".encode() + b"\0",
    ]
    killed: list[str] = []
    me = os.getpid()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            pid = int(proc.name)
            environ = (proc / "environ").read_bytes()
            if pid == me or not all(_owned(marker, environ) for marker in markers):
                continue
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            os.killpg(os.getpgid(pid), signal.SIGKILL)
            killed.append(f"a leftover process ({command or pid}) was stopped")
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
    return killed


def _owned(marker: bytes, environ: bytes) -> bool:
    """Whether the variable is in this environment — a whole variable, not the tail of another
    (KERNEL_SHARD_AGENT_ID=x, in the environment of `shard batch` and its shell's group)."""
    return environ.startswith(marker) or b"\0" + marker in environ


def recover(agent: Agent, log: EventLog) -> RestartedEvent | None:
    """Close what the last process left open; announce `restarted` if this is a resume."""
    resumed = any(e.type == "message" for e in agent.session.store.entries)
    events, _ = log.read(max(-1, log.next_seq - LOOKBACK - 1), limit=LOOKBACK)
    state = find_dangling(events)
    lost = list(state.calls.values()) + kill_orphans(agent.agent_id)
    emit = agent.events.emit
    for request in state.asks.values():
        lost.append(f"a pending permission request for {request.tool}")
        emit(
            PermissionResolvedEvent,
            request_id=request.request_id,
            decision="deny",
            decided_by="restart",
            source="abort",
            reason="the agent process stopped while waiting for an answer",
        )
    agent.session.close_dangling_calls("aborted: the agent process stopped while this tool ran")
    if state.turn_id is not None:
        lost.append(f"the turn in progress ({state.turn_id})")
        emit(
            TurnEndEvent,
            turn_id=state.turn_id,
            reason="aborted",
            error="the agent process stopped during this turn",
        )
    if not resumed and not lost:
        return None
    agent.session.store.sync()
    return emit(RestartedEvent, lost=lost, entries=len(agent.session.store.entries))
