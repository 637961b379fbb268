"""AgentManifest: what the gateway keeps about an agent, durable in `agents/<id>/manifest.json`.

The manifest is everything needed to start the agent's kernel again (after a kill, a kernel
crash or a gateway restart); the kernel keeps the session JSONL and the event log beside it.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shard_core.engine.plurals import counted
from shard_core.engine.state import write_private
from shard_core.protocol.orchestrator import HeadlessPolicy, PermissionConfig

MANIFEST = "manifest.json"
AGENT_ID = re.compile(r"agent-[A-Za-z0-9_-]{1,64}")


class AgentManifest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    v: int = 1
    id: str
    name: str
    cwd: str
    model: str | None = None
    mode: str = "build"
    permissions: PermissionConfig = Field(default_factory=PermissionConfig)
    rules_from: str | None = None
    """Where `permissions` came from, as the agent's explanations name it."""
    headless_policy: HeadlessPolicy = "deny"
    permission_timeout: float = 60.0
    skills: list[str] = Field(default_factory=list)
    agent_definition: str | None = None
    """The agent definition (agents/NAME.md) the kernel builds the agent from."""
    goal: str | None = None
    """The goal the create request gave: set when the session never had one."""
    mcp_servers: dict[str, dict[str, object]] = Field(default_factory=dict[str, dict[str, object]])
    """MCP servers the create request added to the config's (an ACP host's, for one)."""
    created: float = Field(default_factory=time.time)
    notebook: str | None = None
    """The notebook (a path under the server's root) whose `shard` kernel became this agent."""
    parent_agent_id: str | None = None
    """The agent that launched this one as a subagent (jobs/), if any."""
    alias: str | None = None
    """A subagent's friendly name among its parent's children ("Juniper", "Juniper 2")."""


def new_agent_id() -> str:
    return f"agent-{uuid.uuid4().hex[:12]}"


def agent_folder(home: Path, agent_id: str) -> Path:
    """`<home>/agents/<agent_id>`; ValueError when `agent_id` is not an agent id."""
    if not AGENT_ID.fullmatch(agent_id):
        raise ValueError(f"not an agent id: {agent_id!r}")
    return home / "agents" / agent_id


class ManifestStore:
    """Manifests under `<home>/agents/`; a damaged one is skipped with a warning, never fatal."""

    def __init__(self, home: Path, log: logging.Logger) -> None:
        self.root = home / "agents"
        self.log = log

    def folder(self, agent_id: str) -> Path:
        return agent_folder(self.root.parent, agent_id)

    def events_path(self, agent_id: str) -> Path:
        return self.folder(agent_id) / "events.jsonl"

    def save(self, manifest: AgentManifest) -> None:
        data = json.dumps(manifest.model_dump(mode="json"), indent=2) + "\n"
        write_private(self.folder(manifest.id) / MANIFEST, data.encode("utf-8"))

    def load_all(self) -> dict[str, AgentManifest]:
        found: dict[str, AgentManifest] = {}
        if not self.root.is_dir():
            return found
        for path in sorted(self.root.glob(f"agent-*/{MANIFEST}")):
            manifest = self._load(path)
            if manifest is not None:
                found[manifest.id] = manifest
        return found

    def _load(self, path: Path) -> AgentManifest | None:
        try:
            manifest = AgentManifest.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            self.log.warning("shard: skipping unreadable agent manifest %s: %s", path, _short(exc))
            return None
        if manifest.id != path.parent.name:
            self.log.warning("shard: skipping %s: it names agent %s", path, manifest.id)
            return None
        return manifest


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return counted(exc.error_count(), "invalid field")
    return type(exc).__name__
