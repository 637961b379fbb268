"""ToolRegistry: name → tool, in registration order; the one list of what tools exist."""

from __future__ import annotations

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
