"""MCP client: every MCP server a user already has, through the one registry and the one gate.

`install_mcp` is what the SDK calls: it reads `mcpServers` from config.json and the project's
`.mcp.json` (with trust), and installs `McpCapability` through the ExtensionHost. Modules:
config (shapes, `${VAR}`), names (`mcp__server__tool`), transports, connection (lifecycle),
tool (the Tool adapter), approvals (project servers and tool texts pinned per workspace),
results (content → blocks and descriptors), catalog (lazy start), report (`/mcp`), resources
(the resource tool, prompt commands), stderr (bounded capture).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shard_core.capabilities.mcp.config import (
    PROJECT_FILE,
    ServerConfig,
    ServerConfigs,
    expand,
    load_servers,
    parse_server,
)
from shard_core.capabilities.mcp.connection import ListedTool, McpServer, McpUnavailableError
from shard_core.capabilities.mcp.extension import McpCapability
from shard_core.capabilities.mcp.names import server_parts, tool_names
from shard_core.capabilities.mcp.report import servers_table
from shard_core.capabilities.mcp.tool import McpTool
from shard_core.capabilities.mcp.transports import Registered
from shard_core.engine.config import ShardConfig
from shard_core.engine.credentials import resolve_credential
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.permissions.grants import GrantStore
from shard_core.engine.permissions.sources import RuleSet

__all__ = [
    "PROJECT_FILE",
    "ListedTool",
    "McpCapability",
    "McpServer",
    "McpTool",
    "McpUnavailableError",
    "ServerConfig",
    "ServerConfigs",
    "expand",
    "install_mcp",
    "load_servers",
    "mcp_capability",
    "parse_server",
    "server_parts",
    "servers_table",
    "tool_names",
]


def mcp_capability(
    config: ShardConfig,
    *,
    cwd: Path,
    home: Path,
    env: Mapping[str, str],
    trusted: bool,
    transports: Registered = lambda _name: None,
    agent_id: str | None = None,
    rules: RuleSet | None = None,
) -> McpCapability:
    servers: Mapping[str, Any] = config.mcp_servers
    configs = load_servers(servers, cwd, trusted=trusted)
    return McpCapability(
        configs,
        cwd=cwd,
        env=env,
        resolve=lambda name: resolve_credential(config, name, env),
        transports=transports,
        grants=GrantStore(agent_id) if agent_id else None,
        home=home,
        rules=rules,
    )


async def install_mcp(
    host: ExtensionHost,
    config: ShardConfig,
    *,
    cwd: Path,
    home: Path,
    env: Mapping[str, str],
    trusted: bool,
    agent_id: str,
    diagnostics: list[str],
    rules: RuleSet | None = None,
) -> McpCapability:
    """Install the MCP capability (after the extensions, so their transports are known);
    `rules` are the gate's, named when a changed tool is disabled."""
    capability = mcp_capability(
        config,
        cwd=cwd,
        home=home,
        env=env,
        trusted=trusted,
        transports=host.mcp_transport,
        agent_id=agent_id,
        rules=rules,
    )
    await host.install("shard.mcp", capability)
    diagnostics.extend(f"mcp: {d}" for d in capability.diagnostics)
    return capability
