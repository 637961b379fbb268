"""McpCapability: the configured MCP servers' tools, installed through ExtensionApi.

    mcp = McpCapability(configs, cwd=…, env=…, resolve=…, transports=host.mcp_transport,
                        grants=GrantStore(agent_id), home=SHARD_HOME)
    await host.install("shard.mcp", mcp)

At install every server's tools are registered as `mcp__<server>__<tool>`: from the catalog
cache without starting the server (it starts on first use), or, for a server never seen before
or marked `eager`, by starting it now (in parallel, each within its startup timeout; one that
fails is a diagnostic, not a failed agent). A project server (`.mcp.json`, with trust) starts
only while its entry hashes as a person approved it in this workspace (approvals.py): a new or
changed one is asked about once, and without anyone to ask it is skipped, with the reason. Each
listing is checked against the grants and against the text first seen: a tool whose description
or schema changed is disabled, with a notice naming what would have let it run (a grant, a rule
and its source), until a person re-approves it (`/mcp approve TOOL`). `/mcp` reports servers,
tools and stderr; the disposer stops every server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path

from shard_core.capabilities.mcp.approvals import Approvals
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
from shard_core.engine.permissions.checks import Check, RuleBook, evaluate_check
from shard_core.engine.permissions.grants import GrantStore
from shard_core.engine.permissions.sources import RuleSet
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
        rules: RuleSet | None = None,
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
        self._rules = rules or RuleSet()
        self._approvals = Approvals(home, cwd)
        self.skipped: dict[str, ServerConfig] = {}
        """project servers not started: new or changed since a person approved them"""
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
        self._parts = server_parts(self.configs.servers)
        starting: list[McpServer] = []
        for config in self.configs.servers.values():
            if not await self._project_approved(api, config):
                continue
            server = self._add_server(config)
            cached = read_catalog(self._catalog(server))
            if (cached is None and self.start_unknown) or config.eager:
                starting.append(server)
            elif cached is not None:
                server.tools, server.prompts, server.resources = cached
                self._register(server)
        await asyncio.gather(*(self._start_at_install(s) for s in starting))
        return self.close

    def _add_server(self, config: ServerConfig) -> McpServer:
        server = McpServer(
            config,
            self._parts[config.name],
            lambda c=config: self._opener(c),
            on_tools=self._listed,
            notify=self._notify,
        )
        server.stderr.secrets = KnownSecrets.from_environment(self._env)
        self.servers[config.name] = server
        return server

    async def _project_approved(self, api: ExtensionApi, config: ServerConfig) -> bool:
        """A user server, or a project server whose entry a person approved (asked once now
        when it is new or changed; no answer: skipped, with the reason)."""
        if config.origin != "project" or self._approvals.server_approved(config):
            return True
        question = (
            f"The project's .mcp.json asks to start MCP server {config.name!r}: "
            f"{config.type} `{config.target}`. It runs outside the sandbox. It is new or "
            "changed since a person last approved it in this workspace. Start it?"
        )
        if await api.ui.confirm("Start a project MCP server?", question) is True:
            self._approvals.approve_server(config)
            return True
        self.skipped[config.name] = config
        self.diagnostics.append(
            f"project MCP server {config.name!r} ({config.target}) not started: new or changed "
            f"since a person approved it, and nobody approved it now; /mcp approve {config.name} "
            "starts it"
        )
        return False

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
                self._api.register_command(command, handler.description, handler, hint=handler.hint)

    def check(self, tool: McpTool) -> None:
        """Disable a tool that cannot be shown in full, or that changed since it was approved
        (a grant's pin) or first seen (whatever else lets it run: a rule, `--allow`)."""
        was = tool.disabled
        tool.disabled = tool.too_long() or self._changed(tool)
        if tool.disabled and tool.disabled != was:
            self._notify(f"{tool.name} disabled: {tool.disabled}")

    def _changed(self, tool: McpTool) -> str | None:
        again = f"it stays disabled until re-approved (/mcp show {tool.name}, then /mcp approve "
        pins = self._grants.pins(tool.name) if self._grants is not None else set[str]()
        if pins and tool.pin() not in pins:
            why = "its description or input schema changed since a person approved it"
            return f"{why}; {again}{tool.name})"
        first = self._approvals.tool_pin(tool.name)
        if first is None:  # first seen: the text later listings are held to
            self._approvals.pin_tool(tool.name, tool.pin())
            return None
        if first == tool.pin():
            return None
        why = "its description or input schema changed since it was first seen"
        return f"{why}; {self._allowed_by(tool.name)}; {again}{tool.name})"

    def _allowed_by(self, name: str) -> str:
        """What would have run the tool without a question: a rule (with its source) or a grant."""
        verdict = evaluate_check(Check(name, name), RuleBook(self._rules), default_allow=False)
        if verdict.decision == "allow" and verdict.rule is not None:
            return f"rule {verdict.rule.text} ({verdict.rule.source}) allowed it"
        granted = [g.text for g in self._grants.grants()] if self._grants is not None else []
        granted = [r for r in granted if r in (name, name.rsplit("__", 1)[0])]
        if granted:
            return f"grant {granted[0]} allowed it"
        return "no rule allows it (each call asks)"

    def approve(self, name: str) -> str:
        """A person approved `name` as it is now (the `/mcp approve` command): a tool's new
        text, or a project server skipped at install (which then starts on first use)."""
        if name in self.skipped:
            return self._approve_server(self.skipped.pop(name))
        tool = self.tools.get(name)
        if tool is None:
            raise ConfigError(f"no MCP tool {name!r}; /mcp lists them")
        count = self._grants.repin(name, tool.pin()) if self._grants is not None else 0
        self._approvals.pin_tool(name, tool.pin())
        self.check(tool)
        if tool.disabled:
            raise ConfigError(f"{name} stays disabled: {tool.disabled}")
        return f"{name} is enabled again ({counted(count, 'grant')} now pinned to {tool.pin()})"

    def approve_project_server(self, config: ServerConfig) -> None:
        """Record a project server's entry, as it is now, as approved in this workspace."""
        self._approvals.approve_server(config)

    def _approve_server(self, config: ServerConfig) -> str:
        self._approvals.approve_server(config)
        self.diagnostics = [d for d in self.diagnostics if f"server {config.name!r} (" not in d]
        server = self._add_server(config)
        cached = read_catalog(self._catalog(server))
        if cached is not None:
            server.tools, server.prompts, server.resources = cached
            self._register(server)
        return (
            f"project MCP server {config.name!r} approved as it is now; it starts on first "
            f"use (/mcp restart {config.name} starts it now)"
        )

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
