"""McpCapability: the configured MCP servers' tools, installed through ExtensionApi.

    mcp = McpCapability(configs, cwd=…, env=…, resolve=…, transports=host.mcp_transport,
                        grants=GrantStore(agent_id), home=SHARD_HOME)
    await host.install("shard.mcp", mcp)

At install every server's tools are registered as `mcp__<server>__<tool>`: from the catalog
cache without starting the server (it starts on first use), or, for a server never seen before
or marked `eager`, by starting it now (in parallel, each within its startup timeout; one that
fails is a diagnostic, not a failed agent). Each listing is checked against the grants: a tool
approved "always" whose description or schema changed since is disabled, with a notice, until
a person re-approves it (`/mcp approve TOOL`). `/mcp` reports servers, tools and stderr; the
disposer stops every server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path

from shard_core.capabilities.mcp.catalog import catalog_path, read_catalog, write_catalog
from shard_core.capabilities.mcp.config import (
    Expanded,
    Resolve,
    ServerConfig,
    ServerConfigs,
    expand_server,
)
from shard_core.capabilities.mcp.connection import McpServer, McpUnavailableError
from shard_core.capabilities.mcp.names import server_parts, tool_names
from shard_core.capabilities.mcp.report import McpCommand
from shard_core.capabilities.mcp.resources import (
    RESOURCE_TOOL,
    McpResourceTool,
    PromptCommand,
    prompt_command,
)
from shard_core.capabilities.mcp.tool import McpTool
from shard_core.capabilities.mcp.transports import Opener, Registered, opener
from shard_core.contracts import Disposer, ExtensionApi
from shard_core.engine.permissions.grants import GrantStore
from shard_core.engine.plurals import counted
from shard_core.types.errors import ConfigError
from shard_core.types.secrets import KnownSecrets

log = logging.getLogger("shard.mcp")


class McpCapability:
    def __init__(
        self,
        configs: ServerConfigs,
        *,
        cwd: Path,
        env: Mapping[str, str],
        resolve: Resolve,
        transports: Registered,
        grants: GrantStore | None,
        home: Path,
    ) -> None:
        self.configs = configs
        self.diagnostics: list[str] = list(configs.diagnostics)
        self.notices: list[str] = []
        self.servers: dict[str, McpServer] = {}
        self.tools: dict[str, McpTool] = {}
        self.extras: dict[str, object] = {}
        """resource tools and prompt commands registered, by name"""
        self._cwd, self._env, self._resolve = cwd, env, resolve
        self._transports = transports
        self._grants = grants
        self._home = home
        self._api: ExtensionApi | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.start_unknown = True
        """start a server with no catalog at install, to learn its tools (`shard mcp list`: no)"""

    async def __call__(self, api: ExtensionApi) -> Disposer | None:
        command = McpCommand(self)  # also without servers: it says why there are none
        api.register_command("mcp", command.description, command)
        if not self.configs.servers:
            return None
        self._api = api
        parts = server_parts(self.configs.servers)
        starting: list[McpServer] = []
        for name, config in self.configs.servers.items():
            server = McpServer(
                config,
                parts[name],
                lambda c=config: self._opener(c),
                on_tools=self._listed,
                notify=self._notify,
            )
            server.stderr.secrets = KnownSecrets.from_environment(self._env)
            self.servers[name] = server
            cached = read_catalog(self._catalog(server))
            if (cached is None and self.start_unknown) or config.eager:
                starting.append(server)
            elif cached is None:
                continue
            else:
                server.tools, server.prompts, server.resources = cached
                self._register(server)
        await asyncio.gather(*(self._start_at_install(s) for s in starting))
        return self.close

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.servers.values()))

    # -- listing ------------------------------------------------------------------------------

    def _listed(self, server: McpServer) -> None:
        """A (re)start listed the tools: register new ones, update and re-check known ones."""
        self._register(server)
        write_catalog(self._catalog(server), server.tools, server.prompts, server.resources)

    def _register(self, server: McpServer) -> None:
        names = tool_names(server.part, [t.name for t in server.tools])
        for listed in server.tools:
            full = names[listed.name]
            tool = self.tools.get(full)
            if tool is None:
                tool = self.tools[full] = McpTool(full, server, listed)
                if self._api is not None:
                    self._api.register_tool(tool)
            tool.listed = listed
            self.check(tool)
        for tool in self.tools.values():
            if tool.server is server and tool.name not in names.values():
                tool.disabled = "the server no longer offers this tool"
        self._register_extras(server, set(names.values()))

    def _register_extras(self, server: McpServer, taken: set[str]) -> None:
        """The generic resource tool and the prompt commands, once each."""
        if self._api is None:
            return
        name = f"mcp__{server.part}__{RESOURCE_TOOL}"
        if server.resources and name not in taken and name not in self.extras:
            tool = McpResourceTool(name, server)
            self.extras[name] = tool
            self._api.register_tool(tool)
        for prompt in server.prompts:
            command = prompt_command(server.part, prompt)
            if command not in self.extras:
                handler = PromptCommand(server, prompt)
                self.extras[command] = handler
                self._api.register_command(command, handler.description, handler)

    def check(self, tool: McpTool) -> None:
        """Disable a tool that cannot be shown in full, or that changed since it was approved."""
        was = tool.disabled
        tool.disabled = tool.too_long()
        if tool.disabled is None and self._grants is not None:
            pins = self._grants.pins(tool.name)
            if pins and tool.pin() not in pins:
                tool.disabled = (
                    "its description or input schema changed since a person approved it; "
                    f"it stays disabled until re-approved (/mcp show {tool.name}, then "
                    f"/mcp approve {tool.name})"
                )
        if tool.disabled and tool.disabled != was:
            self._notify(f"{tool.name} disabled: {tool.disabled}")

    def approve(self, name: str) -> str:
        """A person re-approved `name` as it is now (the `/mcp approve` command)."""
        tool = self.tools.get(name)
        if tool is None:
            raise ConfigError(f"no MCP tool {name!r}; /mcp lists them")
        if self._grants is None:
            raise ConfigError("this agent keeps no grants")
        count = self._grants.repin(name, tool.pin())
        self.check(tool)
        if tool.disabled:
            raise ConfigError(f"{name} stays disabled: {tool.disabled}")
        return f"{name} is enabled again ({counted(count, 'grant')} now pinned to {tool.pin()})"

    # -- helpers ------------------------------------------------------------------------------

    async def _start_at_install(self, server: McpServer) -> None:
        try:
            await server.ensure()
        except McpUnavailableError as exc:
            self.diagnostics.append(str(exc).splitlines()[0])

    def _opener(self, config: ServerConfig) -> Opener:
        try:
            values = expand_server(config, self._env, self._resolve)
            server = self.servers.get(config.name)
            if server is not None:  # what `${…}` put in, kept out of its stderr
                server.stderr.secrets.add(*_expanded_values(config, values))
            return opener(config, values, self._transports, self._cwd)
        except ConfigError as exc:
            message = str(exc)

            def refuse(_tail: object) -> object:
                raise ConfigError(message)

            return refuse  # pyright: ignore[reportReturnType]

    def _catalog(self, server: McpServer) -> Path:
        return catalog_path(self._home / "mcp", server.config, server.part)

    def _notify(self, message: str) -> None:
        self.notices.append(message)
        log.warning("%s", message)
        if self._api is None:
            return
        try:
            task = asyncio.get_running_loop().create_task(self._api.ui.notify("MCP", message))
        except RuntimeError:
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _expanded_values(config: ServerConfig, values: Expanded) -> list[str]:
    """The env and header values that came from a `${…}` (a literal one is not a secret)."""
    found: list[str] = []
    for key, expanded in (("env", values.env), ("headers", values.headers)):
        raw: dict[str, object] = config.raw.get(key) or {}
        found.extend(v for k, v in expanded.items() if "${" in str(raw.get(k, "")))
    return found
