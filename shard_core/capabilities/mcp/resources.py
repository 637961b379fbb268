"""Resources and prompts: a generic resource tool per server, and `/mcp:<server>:<prompt>`.

`mcp__<server>__resource{uri?}` lists the server's resources, or reads one by URI. Its
description is Shard's own (no server text reaches the model through it), and like every MCP
tool it asks before it runs. A prompt command fetches the prompt with `key=value` arguments and
shows its messages in the cell; it sends nothing to the model by itself.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from shard_core.capabilities.mcp.connection import McpUnavailableError
from shard_core.capabilities.mcp.results import to_tool_result
from shard_core.contracts import ToolContext
from shard_core.types import JsonObject, ToolResult

if TYPE_CHECKING:
    from shard_core.capabilities.mcp.connection import McpServer

RESOURCE_TOOL = "resource"


class McpResourceTool:
    read_only = False

    def __init__(self, name: str, server: McpServer) -> None:
        self.name = name
        self.server = server
        self.description = (
            f"Resources of the MCP server {server.name!r}: call without `uri` to list them, "
            "with a `uri` from that list to read one."
        )
        self.input_schema: JsonObject = {
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "the resource to read"}},
            "additionalProperties": False,
        }

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        del ctx
        from mcp.shared.exceptions import MCPError

        uri = input.get("uri")
        try:
            if not uri:
                return _listing(await self.server.list_resources(), self.server.name)
            if not isinstance(uri, str):
                return ToolResult.error("uri must be a string")
            return _contents(await self.server.read_resource(uri), self.name, self.server.name)
        except McpUnavailableError as exc:
            return ToolResult.error(str(exc))
        except MCPError as exc:
            return ToolResult.error(
                f"MCP server {self.server.name!r} refused to read {uri!r}: {exc.error.message}"
            )


def _listing(result: Any, server: str) -> ToolResult:
    rows = [
        f"- {r.uri} ({r.name}{', ' + r.mime_type if r.mime_type else ''})"
        + (f": {r.description}" if r.description else "")
        for r in result.resources
    ]
    text = "\n".join(rows) or f"MCP server {server!r} lists no resources."
    return ToolResult.ok(text)


def _contents(result: Any, tool: str, server: str) -> ToolResult:
    class _Blocks:
        content = [_Embedded(c) for c in result.contents]
        structured_content = None
        is_error = False

    return to_tool_result(_Blocks(), tool, server)


class _Embedded:
    """A resource's contents in the shape of an embedded-resource content block."""

    type = "resource"

    def __init__(self, resource: Any) -> None:
        self.resource = resource


def prompt_command(server: str, prompt: str) -> str:
    """`mcp:<server>:<prompt>` in the command alphabet (lowercase, digits, `_`, `-`, `:`)."""
    clean = re.sub(r"[^a-z0-9_-]+", "_", f"{server}".lower())
    name = re.sub(r"[^a-z0-9_-]+", "_", prompt.lower())
    return f"mcp:{clean}:{name}"[:64]


class PromptCommand:
    def __init__(self, server: McpServer, prompt: str) -> None:
        self.server = server
        self.prompt = prompt
        self.description = f"the MCP prompt {prompt!r} of server {server.name!r}"
        self.hint = "[ARG=VALUE ...]"

    async def __call__(self, args: list[str]) -> str:
        values: dict[str, str] = {}
        for arg in args:
            key, eq, value = arg.partition("=")
            if not eq or not key:
                return f"**error:** arguments are KEY=VALUE, got {arg!r}"
            values[key] = value
        try:
            result = await self.server.get_prompt(self.prompt, values)
        except McpUnavailableError as exc:
            return f"**error:** {exc}"
        except Exception as exc:  # the server's refusal, shown to the person who asked
            return f"**error:** MCP server {self.server.name!r}: {exc}"
        lines = [f"### {self.prompt} ({self.server.name})"]
        for message in result.messages:
            text = getattr(message.content, "text", None) or f"[{message.content.type}]"
            lines.append(f"**{message.role}:** {text}")
        return "\n\n".join(lines)
