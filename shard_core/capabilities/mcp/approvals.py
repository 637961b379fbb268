"""Approvals per workspace: project MCP servers pinned by a content hash, tools by the first text.

`SHARD_HOME/mcp/approved/<hash of the workspace path>.json` holds, for one workspace:

- `servers`: project server name → the hash of its `.mcp.json` entry (command, args, env, url,
  headers …) a person approved. `--trust-project` trusts the project, not whatever the agent (or
  a pull) later writes into `.mcp.json`: a new or changed entry is asked about once before it
  starts, and without anyone to ask it is not started.
- `tools`: MCP tool name → the hash of the description and schema first seen (or last
  re-approved with `/mcp approve`). A tool whose text changes is disabled whatever would let it
  run — a grant, a config or project rule, `--allow` — until a person approves the new text.

A file that cannot be read counts as no approvals (more is asked, never less).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.mcp.config import ServerConfig
from shard_core.engine.state import write_private


def server_hash(config: ServerConfig) -> str:
    """sha256 (first 16 hex digits) of the server's whole entry, canonical JSON."""
    data = json.dumps(dict(config.raw), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


class Approvals:
    def __init__(self, home: Path, workspace: Path) -> None:
        real = str(workspace.resolve())
        key = hashlib.sha256(real.encode("utf-8")).hexdigest()[:16]
        self.path = home / "mcp" / "approved" / f"{key}.json"
        self._workspace = real
        self._data = self._read()

    def server_approved(self, config: ServerConfig) -> bool:
        return self._data["servers"].get(config.name) == server_hash(config)

    def approve_server(self, config: ServerConfig) -> None:
        self._data["servers"][config.name] = server_hash(config)
        self._save()

    def tool_pin(self, name: str) -> str | None:
        found = self._data["tools"].get(name)
        return found if isinstance(found, str) else None

    def pin_tool(self, name: str, pin: str) -> None:
        if self._data["tools"].get(name) != pin:
            self._data["tools"][name] = pin
            self._save()

    def _read(self) -> dict[str, dict[str, Any]]:
        empty: dict[str, dict[str, Any]] = {"servers": {}, "tools": {}}
        try:
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return empty
        if not isinstance(data, dict):
            return empty
        for section in empty:
            found: Any = cast(dict[str, Any], data).get(section)
            if isinstance(found, dict):
                empty[section] = {str(k): v for k, v in cast(dict[Any, Any], found).items()}
        return empty

    def _save(self) -> None:
        payload = {"workspace": self._workspace, **self._data}
        # Unsaved, an approval lasts this run: the next one asks again (never less).
        with contextlib.suppress(OSError):
            write_private(self.path, json.dumps(payload, indent=1, sort_keys=True).encode())
