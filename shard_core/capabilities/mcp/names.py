"""Tool names for MCP tools: `mcp__<server>__<tool>`, in the providers' alphabet, never clashing.

Providers accept `[A-Za-z0-9_-]{1,64}`. A server's part never contains `__` (runs of `_` are
folded), so the first `__` after `mcp__` always ends it: two servers can never produce the same
name, whatever their tools are called, and no server can name a tool outside its namespace. A
name that had to be changed, cut or disambiguated carries a short hash of the original.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PREFIX = "mcp__"
MAX_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]+")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


def server_part(name: str) -> str:
    """A server name as it appears in tool names: `[A-Za-z0-9_-]`, no `__`, at most 24 chars."""
    clean = re.sub(r"_{2,}", "_", _BAD.sub("_", name)).strip("_") or "server"
    if clean != name or len(clean) > 24:
        clean = f"{clean[:17].rstrip('_')}-{_digest(name)}"
    return clean


def server_parts(names: Iterable[str]) -> dict[str, str]:
    """Configured name → its part; distinct names always get distinct parts."""
    parts: dict[str, str] = {}
    used: set[str] = set()
    for name in sorted(names):
        part = server_part(name)
        if part in used:  # only possible for names that were changed: the hash tells them apart
            part = f"{part[:17]}-{_digest(name + '#')}"
        used.add(part)
        parts[name] = part
    return parts


def tool_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """The server's tool names → full registry names, unique within the server."""
    head = f"{PREFIX}{server}__"
    room = MAX_NAME - len(head)
    names: dict[str, str] = {}
    used: set[str] = set()
    for tool in tools:
        clean = _BAD.sub("_", tool) or "tool"
        if clean != tool or len(clean) > room or f"{head}{clean}" in used:
            clean = f"{clean[: room - 7]}-{_digest(tool)}"
        full = f"{head}{clean}"
        used.add(full)
        names[tool] = full
    return names
