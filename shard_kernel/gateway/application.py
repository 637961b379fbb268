"""ShardGateway: the gateway as a jupyter_server `ExtensionApp` — its settings, every route it
serves, what it starts with the server's loop and what it lets go of at stop.

jupyter_server finds it through `shard_kernel.gateway`'s `_jupyter_server_extension_points`, so
the one config file (`jupyter-config/jupyter_server_config.d/shard_kernel.gateway.json`) enables
it in `jupyter lab`, `jupyter server`, JupyterHub's single-user servers and in front of a kernel
gateway, and `shard gateway` names the same module. Its settings are traitlets
(`--ShardGateway.trust_project=True`, or `c.ShardGateway.trust_project` in a config file); a
setting a kernel reads too defaults to the kernel's variable, so one setting configures both.
It also makes the server's kernel manager the warm pool's (pool.py). `stop_extension` is the
stop hook jupyter_server 2 calls (it never calls a module extension's
`_unload_jupyter_server_extension`), before it shuts the kernels down.
"""

from __future__ import annotations

import os
from typing import Any

from jupyter_server.extension.application import ExtensionApp
from traitlets import Bool, Unicode, default

from shard_kernel.agent_env import TRUST_VARIABLE, trusts_project
from shard_kernel.gateway.completion import COMPLETION_ROUTES
from shard_kernel.gateway.events import AgentWatcher
from shard_kernel.gateway.events_socket import SOCKET_ROUTES
from shard_kernel.gateway.extension import load_extension
from shard_kernel.gateway.grants import GRANT_ROUTES
from shard_kernel.gateway.handlers import ROUTES, TRUST_KEY
from shard_kernel.gateway.jobs import (
    JOB_ROUTES,
    WORKFLOW_ROUTES,
    Coordinator,
    install_jobs,
    start_jobs,
)
from shard_kernel.gateway.mention_files import MENTION_ROUTES
from shard_kernel.gateway.pool import POOL_ROUTES, PooledKernelManager
from shard_kernel.gateway.terminals import TERMINAL_ROUTES
from shard_kernel.gateway_reach import SERVER_SETTING

ALL_ROUTES: tuple[tuple[str, type[Any]], ...] = (
    *ROUTES,
    *GRANT_ROUTES,
    *SOCKET_ROUTES,
    *JOB_ROUTES,
    *WORKFLOW_ROUTES,
    *TERMINAL_ROUTES,
    *POOL_ROUTES,
    *COMPLETION_ROUTES,
    *MENTION_ROUTES,
)
"""Every route the gateway serves (path relative to base_url, handler), in one table."""


class ShardGateway(ExtensionApp):
    name = "shard_gateway"
    description = "Shard's agent registry, events and subagent jobs under /shard/api/"
    load_other_extensions = True

    trust_project = Bool(
        help=f"""Whether the server's agent kernels read project files (agent definitions,
        skills): a create request or a subagent launch naming a project one is accepted only
        then. Defaults to {TRUST_VARIABLE}, the variable the kernels read."""
    ).tag(config=True)

    @default("trust_project")
    def _default_trust_project(self) -> bool:
        return trusts_project()

    kernel_reach_url = Unicode(
        help=f"""The URL kernels on a kernel gateway (`--gateway-url`) reach this server at, for
        their subagent tools, when it is not the server's own. Defaults to {SERVER_SETTING}."""
    ).tag(config=True)

    @default("kernel_reach_url")
    def _default_kernel_reach_url(self) -> str:
        return os.environ.get(SERVER_SETTING, "")

    watcher: AgentWatcher | None = None
    coordinator: Coordinator | None = None

    def _link_jupyter_server_extension(self, serverapp: Any) -> None:
        """Make the warm pool's kernel manager the server's (pool.py), before the server makes
        its kernel manager: unless one is configured, or kernels live on a kernel gateway."""
        super()._link_jupyter_server_extension(serverapp)
        from jupyter_server.gateway.gateway_client import GatewayClient

        chosen = "kernel_manager_class" in serverapp.config.get("ServerApp", {})
        if not chosen and not GatewayClient.instance(parent=serverapp).gateway_enabled:
            serverapp.kernel_manager_class = PooledKernelManager

    def initialize_settings(self) -> None:
        serverapp: Any = self.serverapp
        registry, self.watcher = load_extension(serverapp, self.settings)
        registry.reach_url = self.kernel_reach_url
        self.settings[TRUST_KEY] = self.trust_project
        self.coordinator = install_jobs(
            serverapp, registry, self.settings, trust_project=self.trust_project
        )

    def initialize_handlers(self) -> None:
        self.handlers.extend(ALL_ROUTES)

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        if self.watcher is not None:
            self.watcher.start()
        if isinstance(serverapp.kernel_manager, PooledKernelManager):
            serverapp.kernel_manager.fill_pool()
        if self.coordinator is not None:
            start_jobs(serverapp, self.coordinator)

    async def stop_extension(self) -> None:
        """The coordinator lets go of its children (their unfinished runs stay `running` on
        disk and read as interrupted at the next start). The warm pool ends first: an
        extension's stop that never returns would keep jupyter_server from its kernels."""
        km = getattr(self.serverapp, "kernel_manager", None)
        if isinstance(km, PooledKernelManager):
            await km.close_pool()
            km.retire_template()  # it exits once the kernels jupyter_server ends next are gone
        if self.coordinator is not None:
            await self.coordinator.close()
