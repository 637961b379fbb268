"""`/mcp`: servers, status and tools as markdown, plus the few actions a person takes.

/mcp                    servers (origin, transport, status, tools) and disabled tools
/mcp show TOOL          a tool's full description and schema, as the model reads them
/mcp approve TOOL       re-approve a tool disabled because its description changed
/mcp restart SERVER     restart a server (also one stopped after repeated failures)
/mcp logs SERVER        the last lines the server wrote to stderr
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Protocol

from shard_core.capabilities.mcp.connection import McpServer, McpUnavailableError
from shard_core.capabilities.mcp.tool import McpTool
from shard_core.engine.plurals import counted
from shard_core.types.errors import ConfigError


class McpState(Protocol):
    """What `/mcp` reads and does of the capability (McpCapability), declared here so the
    command does not import the capability that registers it."""

    @property
    def servers(self) -> Mapping[str, McpServer]: ...

    @property
    def tools(self) -> Mapping[str, McpTool]: ...

    @property
    def diagnostics(self) -> Sequence[str]: ...

    def approve(self, name: str) -> str: ...


USAGE = "usage: /mcp [show TOOL | approve TOOL | restart SERVER | logs SERVER]"


class McpCommand:
    description = "MCP servers and their tools; /mcp show|approve TOOL, /mcp restart|logs SERVER"

    def __init__(self, capability: McpState) -> None:
        self.capability = capability

    async def __call__(self, args: list[str]) -> str:
        if not args:
            return servers_table(self.capability)
        action, rest = args[0], args[1:]
        if len(rest) != 1 or action not in ("show", "approve", "restart", "logs"):
            return USAGE
        try:
            if action == "show":
                return self._show(rest[0])
            if action == "approve":
                return self.capability.approve(rest[0])
            server = self._server(rest[0])
            if action == "logs":
                return f"```\n{server.stderr.text(lines=50) or '(nothing on stderr)'}\n```"
            await server.restart()
            return f"{server.name}: restarted, {counted(len(server.tools), 'tool')}"
        except (ConfigError, McpUnavailableError) as exc:
            return f"**error:** {exc}"

    def _server(self, name: str) -> McpServer:
        server = self.capability.servers.get(name)
        if server is None:
            known = ", ".join(sorted(self.capability.servers)) or "none"
            raise ConfigError(f"no MCP server {name!r} (configured: {known})")
        return server

    def _show(self, name: str) -> str:
        tool = self.capability.tools.get(name)
        if tool is None:
            raise ConfigError(f"no MCP tool {name!r}; /mcp lists them")
        schema = json.dumps(tool.listed.input_schema, indent=2, sort_keys=True)
        state = f"**disabled:** {tool.disabled}\n\n" if tool.disabled else ""
        return (
            f"### {name}\n\n{state}Server {tool.server.name!r}, its tool {tool.listed.name!r}, "
            f"hash {tool.pin()}.\n\n```text\n{tool.listed.description}\n```\n\n"
            f"```json\n{schema}\n```"
        )


def servers_table(capability: McpState) -> str:
    if not capability.servers:
        lines = ["No MCP servers configured (config.json `mcpServers`, or the project's "
                 "`.mcp.json` with --trust-project)."]  # fmt: skip
        return "\n".join(lines + [f"- {d}" for d in capability.diagnostics])
    lines = ["| server | from | transport | status | tools |", "|---|---|---|---|---|"]
    for server in capability.servers.values():
        status = server.state + (f" ({server.error})" if server.error else "")
        names = [t.name for t in capability.tools.values() if t.server is server]
        config = server.config
        lines.append(
            f"| {server.name} | {config.origin} | {config.type}: `{config.target}` | {status} "
            f"| {', '.join(names) or '—'} |"
        )
    disabled = [t for t in capability.tools.values() if t.disabled]
    if disabled:
        lines += ["", "Disabled tools:"] + [f"- {t.name}: {t.disabled}" for t in disabled]
    if capability.diagnostics:
        lines += ["", "Notes:"] + [f"- {d}" for d in capability.diagnostics]
    return "\n".join(lines)
