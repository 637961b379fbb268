"""Child backends: who runs a subagent when its agent definition says `backend: {kind: spec}`.

Without a `backend` a child is a Shard kernel, driven by the coordinator itself. A definition
that names a backend is run by the backend registered under that kind
(`Coordinator.register_backend(kind, backend)`; the bundled `acp` one runs any Agent Client
Protocol agent, acp_child.py): the coordinator checks the spec at launch, hands the backend one
run at a time, and records what it returns exactly as it records a kernel child's turn — the
run's state, reason and report, the report delivered to the parent, stop and deadline alike.

A backend keeps the child inside the bounds the coordinator gives it: the child's manifest
(its permissions, never more than its parent's, and its workspace) and its folder under
`SHARD_HOME/agents/<id>/`, where its session log and events go.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from shard_kernel.gateway.manifest import AgentManifest

__all__ = ["ChildBackend", "ChildRun", "ChildTurn", "TurnOutcome"]


@dataclass(frozen=True)
class ChildTurn:
    """One run of a child, as the coordinator hands it to a backend."""

    manifest: AgentManifest
    """the child's manifest: its id, workspace (`cwd`), permissions, headless policy"""
    spec: Any
    """the definition's backend spec, as written (already passed `ChildBackend.check`)"""
    prompt: str
    note: str
    """who the child is (parent, job, run): said before the task"""
    home: Path
    """SHARD_HOME; the child's folder is `home / "agents" / manifest.id`"""
    log: logging.Logger


@dataclass(frozen=True)
class TurnOutcome:
    state: Literal["completed", "failed", "stopped"]
    reason: str | None
    report: str
    session_id: str | None = None
    entry_id: str | None = None


class ChildRun(Protocol):
    async def run(self) -> TurnOutcome:
        """Run the turn to its end. Cancelling it (a deadline) must stop the child's process."""
        ...

    async def stop(self) -> None:
        """Ask the running turn to stop (subagent_stop); `run` then returns `stopped`."""
        ...


class ChildBackend(Protocol):
    def check(self, spec: Any) -> str | None:
        """What is wrong with `spec` (a sentence for the launcher), or None."""
        ...

    def start(self, turn: ChildTurn) -> ChildRun: ...
