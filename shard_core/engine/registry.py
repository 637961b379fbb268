"""ToolRegistry: name → tool, in registration order; the one list of what tools exist."""

from __future__ import annotations

from collections.abc import Iterable

from shard_core.contracts.tool import Tool


class ToolRegistryImpl:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> Tool | None:
        replaced = self._tools.pop(tool.name, None)
        self._tools[tool.name] = tool
        return replaced

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools


class AllowedTools(ToolRegistryImpl):
    """A view of `base` limited to an allowlist (an agent definition's `tools`).

    A view, not a copy: a tool registered later (an MCP server that connects after start) still
    has to be on the list to be seen. Names match without regard to case, so a definition
    written for another harness (`Read, Grep`) means Shard's `read` and `grep`."""

    def __init__(self, base: ToolRegistryImpl, allowed: Iterable[str]) -> None:
        super().__init__()
        self.base = base
        self.allowed = frozenset(name.lower() for name in allowed)

    def register(self, tool: Tool) -> Tool | None:
        return self.base.register(tool)

    def get(self, name: str) -> Tool | None:
        tool = self.base.get(name)
        return tool if tool is not None and tool.name.lower() in self.allowed else None

    def tools(self) -> list[Tool]:
        return [t for t in self.base.tools() if t.name.lower() in self.allowed]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def missing(self) -> list[str]:
        """Allowlisted names no registered tool has (for a diagnostic)."""
        present = {t.name.lower() for t in self.base.tools()}
        return sorted(n for n in self.allowed if n not in present)
