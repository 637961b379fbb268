"""GrantStore: "allow always" rules, for one agent or for every agent in one workspace.

Scope "agent": `SHARD_HOME/agents/<id>/permission-grants.json`. Scope "workspace":
`SHARD_HOME/workspaces/<sha256 of the folder's real path, 16 hex>/permission-grants.json` (the
file names its folder), loaded by every agent whose cwd is that folder, so a second notebook in
the same folder does not ask again. Grants belong to the agent or workspace, not to a client:
whoever answered, the grant applies to every later call. Deny rules are judged before any grant,
so no grant of either scope lifts a deny. The file is replaced atomically (temp + fsync +
rename) and is owner-only. A store notices when another process changed the file and reloads it.
A file it cannot read counts as no grants (the gate then asks more, never less) and is never
overwritten: `add` and `revoke` refuse until a person fixes or removes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from shard_core.engine.permissions.rules import Rule, parse_rule
from shard_core.engine.plurals import counted
from shard_core.engine.state import shard_home, write_private
from shard_core.types.errors import ConfigError

__all__ = ["GRANTS_FILE", "SCOPES", "Grant", "GrantScope", "GrantStore", "workspace_key"]

GrantScope = Literal["agent", "workspace"]
SCOPES: tuple[GrantScope, ...] = ("agent", "workspace")

GRANTS_FILE = "permission-grants.json"
_VERSION = 1


@dataclass(frozen=True)
class Grant:
    rule: Rule
    granted_by: str
    ts: float
    pins: Mapping[str, str] = field(default_factory=dict[str, str])
    """MCP tool name → the hash of the description and schema approved (see pins.py)"""

    @property
    def text(self) -> str:
        return self.rule.text


def workspace_key(cwd: Path) -> str:
    """The folder's key under `SHARD_HOME/workspaces/`: its real path, hashed."""
    real = os.path.realpath(cwd)
    return hashlib.sha256(real.encode("utf-8")).hexdigest()[:16]


class GrantStore:
    """Grants of one scope: `grants()`, `add`, `revoke`; a new instance reads what an old one
    saved. `GrantStore(agent_id)` is the agent's, `GrantStore.for_workspace(cwd)` the folder's."""

    scope: GrantScope = "agent"
    workspace: str | None = None
    """the folder's real path (workspace scope only)"""

    def __init__(self, agent_id: str, home: Path | None = None) -> None:
        if not agent_id or agent_id in (".", "..") or "/" in agent_id or "\\" in agent_id:
            raise ConfigError(f"invalid agent id for grants: {agent_id!r}")
        self._open((home or shard_home()) / "agents" / agent_id / GRANTS_FILE)

    @classmethod
    def for_workspace(cls, cwd: Path, home: Path | None = None) -> GrantStore:
        """The grants every agent working in `cwd` shares."""
        store = cls.__new__(cls)
        store.scope = "workspace"
        store.workspace = os.path.realpath(cwd)
        store._open((home or shard_home()) / "workspaces" / workspace_key(cwd) / GRANTS_FILE)
        return store

    def _open(self, path: Path) -> None:
        self.path = path
        self.problem: str | None = None
        self._grants: list[Grant] = []
        self._stamp: tuple[int, int, int] | None = None
        self._refresh()

    def grants(self) -> list[Grant]:
        """Every grant, oldest first (re-read when the file changed)."""
        self._refresh()
        return list(self._grants)

    def rules(self) -> list[Rule]:
        return [grant.rule for grant in self.grants()]

    def add(self, rule: str, granted_by: str, pins: Mapping[str, str] | None = None) -> Grant:
        """Save `rule` (parsed first); an existing identical grant is returned unchanged, except
        that `pins` (MCP tool → approved hash) are merged into it."""
        parsed = parse_rule(rule)
        self._writable()
        existing = next((g for g in self._grants if g.text == parsed.text), None)
        if existing is not None:
            if not pins or all(existing.pins.get(k) == v for k, v in pins.items()):
                return existing
            merged = Grant(
                existing.rule, existing.granted_by, existing.ts, {**existing.pins, **pins}
            )
            self._save([merged if g is existing else g for g in self._grants])
            return merged
        grant = Grant(parsed, granted_by, time.time(), dict(pins or {}))
        self._save([*self._grants, grant])
        return grant

    def repin(self, tool: str, pin: str) -> int:
        """A person re-approved `tool` as it is now: every grant pinned to it takes `pin`."""
        self._writable()
        changed = [
            Grant(g.rule, g.granted_by, g.ts, {**g.pins, tool: pin}) if tool in g.pins else g
            for g in self._grants
        ]
        count = sum(1 for old, new in zip(self._grants, changed, strict=True) if old is not new)
        if count:
            self._save(changed)
        return count

    def pins(self, tool: str) -> set[str]:
        """Every hash a grant pinned for `tool` (empty: never approved for always)."""
        return {g.pins[tool] for g in self.grants() if tool in g.pins}

    def revoke(self, rule: str) -> bool:
        """Remove the grant whose rule text is `rule`; False when there is none."""
        self._writable()
        wanted = rule.strip()
        kept = [g for g in self._grants if g.text != wanted]
        if len(kept) == len(self._grants):
            return False
        self._save(kept)
        return True

    # -- file ---------------------------------------------------------------------------------

    def _writable(self) -> None:
        self._refresh()
        if self.problem is not None:
            raise ConfigError(f"{self.problem}; fix or remove the file before changing grants")

    def _save(self, grants: list[Grant]) -> None:
        payload: dict[str, Any] = {"version": _VERSION}
        if self.workspace is not None:
            payload["workspace"] = self.workspace
        payload["grants"] = [_encode(g) for g in grants]
        write_private(self.path, (json.dumps(payload, indent=2) + "\n").encode("utf-8"))
        self._grants = grants
        self._stamp = self._current_stamp()

    def _current_stamp(self) -> tuple[int, int, int] | None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_mtime_ns, stat.st_size)

    def _refresh(self) -> None:
        stamp = self._current_stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._grants, self.problem = [], None
        if stamp is None:
            return
        try:
            self._grants = _decode(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ConfigError) as exc:
            self.problem = f"grants file {self.path} is unreadable: {exc}"


def _encode(grant: Grant) -> dict[str, Any]:
    entry: dict[str, Any] = {"rule": grant.text, "granted_by": grant.granted_by, "ts": grant.ts}
    if grant.pins:
        entry["pins"] = dict(grant.pins)
    return entry


class _GrantEntry(BaseModel):
    rule: str
    granted_by: str = "unknown"
    ts: float = 0.0
    pins: dict[str, str] = {}


class _GrantsFile(BaseModel):
    version: int = _VERSION
    grants: list[_GrantEntry]


def _decode(data: Any) -> list[Grant]:
    try:
        parsed = _GrantsFile.model_validate(data)
    except ValidationError as exc:
        raise ValueError(
            f'expected {{"version": 1, "grants": [...]}} ({counted(exc.error_count(), "problem")})'
        ) from None
    return [Grant(parse_rule(e.rule), e.granted_by, e.ts, e.pins) for e in parsed.grants]
