"""The tool catalog cache: what each server offered last time, so it can start lazily.

`SHARD_HOME/mcp/catalog/<server>-<hash of its config>.json` holds the tools (and prompt names)
the server listed when it last started. With it, an agent registers the server's tools without
starting it; the first call starts it, and its live listing replaces the cached one (a changed
tool is then checked against its approval like any other). A changed config is a new file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from shard_core.capabilities.mcp.config import ServerConfig
from shard_core.capabilities.mcp.connection import ListedTool
from shard_core.engine.state import write_private


def catalog_path(folder: Path, config: ServerConfig, part: str) -> Path:
    fingerprint = json.dumps(
        {"name": config.name, "origin": config.origin, "raw": config.raw},
        sort_keys=True,
        default=str,
    )
    digest = hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:12]
    return folder / "catalog" / f"{part}-{digest}.json"


def read_catalog(path: Path) -> tuple[list[ListedTool], list[str], bool] | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        tools = [
            ListedTool(
                name=str(t["name"]),
                description=str(t.get("description", "")),
                input_schema=dict(t.get("input_schema") or {"type": "object"}),
                title=t.get("title"),
                read_only_hint=t.get("read_only_hint"),
            )
            for t in data["tools"]
        ]
        prompts = [str(p) for p in data.get("prompts", [])]
        return tools, prompts, data.get("resources") is True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_catalog(path: Path, tools: list[ListedTool], prompts: list[str], resources: bool) -> None:
    payload = {
        "tools": [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": t.input_schema,
                "title": t.title,
                "read_only_hint": t.read_only_hint,
            }
            for t in tools
        ],
        "prompts": prompts,
        "resources": resources,
    }
    # A cache: without it the server simply starts when the next agent is created.
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(payload, indent=1).encode("utf-8"))
