"""McpTool: one server tool as a Shard `Tool` — same registry, gate, render path as built-ins.

The input schema is the server's, passed through. `read_only` is always False: a server's
`readOnlyHint` is its own claim, so it never lets a call through unasked, nor into plan mode.
The permission question shows the whole description and schema (the text the model is given),
so what a person approves is what the model reads; a tool whose description could not be shown
in full is disabled. A disabled tool shows the model a neutral description, not the server's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from shard_core.capabilities.mcp.connection import ListedTool, McpUnavailableError
from shard_core.capabilities.mcp.results import to_tool_result
from shard_core.contracts import ToolContext
from shard_core.engine.permissions.pins import description_pin
from shard_core.engine.permissions.preview import MAX_PREVIEW_LINES, MAX_TEXT_CHARS
from shard_core.types import (
    JsonObject,
    RenderDescriptor,
    StatusDescriptor,
    TextDescriptor,
    ToolResult,
)

if TYPE_CHECKING:  # the server owns its connection; the tool only calls through it
    from shard_core.capabilities.mcp.connection import McpServer

_EMPTY_SCHEMA: JsonObject = {"type": "object", "properties": {}}


class McpTool:
    read_only = False

    def __init__(self, name: str, server: McpServer, listed: ListedTool) -> None:
        self.name = name
        self.server = server
        self._listed = listed
        self._disabled: str | None = None
        self.description = ""
        self.input_schema: JsonObject = _EMPTY_SCHEMA
        self._refresh()

    @property
    def listed(self) -> ListedTool:
        """The tool as the server last described it."""
        return self._listed

    @listed.setter
    def listed(self, listed: ListedTool) -> None:
        self._listed = listed
        self._refresh()

    @property
    def disabled(self) -> str | None:
        """Why the tool cannot be used now (None: it can)."""
        return self._disabled

    @disabled.setter
    def disabled(self, reason: str | None) -> None:
        self._disabled = reason
        self._refresh()

    def _refresh(self) -> None:
        if self._disabled:
            self.description = f"Disabled MCP tool of server {self.server.name!r}: {self._disabled}"
            self.input_schema = _EMPTY_SCHEMA
        else:
            self.description = self._listed.description
            self.input_schema = self._listed.input_schema

    def pin(self) -> str:
        """The hash of the server's description and schema (what an approval pins)."""
        return description_pin(self.listed.description, self.listed.input_schema)

    def too_long(self) -> str | None:
        """Why the description and schema cannot be shown in full at approval, if they cannot."""
        description, schema = self.listed.description, _schema_text(self.listed.input_schema)
        lines = description.count("\n") + schema.count("\n") + 2
        if lines > MAX_PREVIEW_LINES - 2 or max(len(description), len(schema)) > MAX_TEXT_CHARS:
            return (
                f"its description and schema ({lines} lines, {len(description) + len(schema)} "
                "characters) are too long to show in full when a person approves it"
            )
        return None

    async def preview(self, input: JsonObject, ctx: ToolContext) -> list[RenderDescriptor]:
        del input, ctx  # the same for every call: what the model was told the tool does
        config = self.server.config
        label = (
            f"MCP tool {self.listed.name!r} of server {config.name!r} ({config.origin} config: "
            f"{config.target}). The model reads this description and schema in full:"
        )
        if self.disabled:
            return [
                StatusDescriptor(label=f"{self.name} is disabled: {self.disabled}", tone="error")
            ]
        return [
            StatusDescriptor(label=label, tone="warn"),
            TextDescriptor(text=self.listed.description or "(no description)"),
            TextDescriptor(
                text=_schema_text(self.listed.input_schema), format="code", language="json"
            ),
        ]

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        del ctx
        from mcp.shared.exceptions import MCPError

        if self.disabled:
            return ToolResult.error(f"{self.name} is disabled: {self.disabled}")
        try:
            await self.server.ensure()  # a (re)start lists the tools again: check once more
            if self.disabled:
                return ToolResult.error(f"{self.name} is disabled: {self.disabled}")
            result = await self.server.call(self.listed.name, dict(input))
        except McpUnavailableError as exc:
            return ToolResult.error(str(exc), mcp={"server": self.server.name})
        except MCPError as exc:
            server, tool = self.server.name, self.listed.name
            return ToolResult.error(
                f"MCP server {server!r} refused {tool!r}: {exc.error.message}",
                mcp={"server": self.server.name, "code": exc.error.code},
            )
        return to_tool_result(result, self.name, self.server.name)


def _schema_text(schema: JsonObject) -> str:
    pretty = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False)
    if pretty.count("\n") < MAX_PREVIEW_LINES // 2:
        return pretty
    return json.dumps(schema, sort_keys=True, ensure_ascii=False)
