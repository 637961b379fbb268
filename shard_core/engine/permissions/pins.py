"""Pins: an approval of an MCP tool is an approval of what the person saw.

A grant ("allow always") for an `mcp__…` tool stores the hash of the tool's description and
input schema at the moment it was given. The gate applies the grant only while the tool still
hashes the same: a server that changes a tool's description after approval (a "rug pull") gets
asked about again, and the MCP capability disables such a tool until a person re-approves it.
Rules a person wrote (config, `--allow`) are not pinned: they are not approvals of a text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from shard_core.contracts import Tool

__all__ = ["description_pin", "is_pinned_name", "tool_pin"]


def is_pinned_name(name: str) -> bool:
    return name.startswith("mcp__")


def tool_pin(tool: Tool) -> str:
    return description_pin(tool.description, tool.input_schema)


def description_pin(description: str, input_schema: Mapping[str, Any]) -> str:
    """sha256 (first 16 hex digits) of the description and the canonical JSON schema."""
    payload = {"description": description, "input_schema": dict(input_schema)}
    data = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]
