"""Subagent jobs the gateway owns: durable records (catalog.py), the coordinator that drives
child kernels (coordinator.py, channel.py), friendly aliases, reports, and REST under
`/shard/api/jobs` (handlers.py).

`install_jobs` adds them to a server that already has the Shard extension's registry, and
writes `SHARD_HOME/gateway.json` (the server's URL and token, 0600) so the agents it starts
can reach these routes over loopback; the sandbox hides SHARD_HOME from their commands.
"""

from __future__ import annotations

import json
import os
from typing import Any

from jupyter_server.utils import url_path_join

from shard_core.engine.state import write_private
from shard_kernel.gateway.jobs.catalog import JobCatalog
from shard_kernel.gateway.jobs.coordinator import Coordinator
from shard_kernel.gateway.jobs.handlers import COORDINATOR_KEY, JOB_ROUTES
from shard_kernel.gateway.registry import AgentRegistry

GATEWAY_LINK = "gateway.json"

__all__ = ["GATEWAY_LINK", "Coordinator", "JobCatalog", "install_jobs"]


def install_jobs(serverapp: Any, registry: AgentRegistry) -> Coordinator:
    home = registry.store.root.parent
    coordinator = Coordinator(registry, JobCatalog(home, serverapp.log), home, serverapp.log)
    interrupted = coordinator.load()
    if interrupted:
        serverapp.log.info("shard: %d subagent job(s) interrupted by the restart", len(interrupted))
    web_app = serverapp.web_app
    web_app.settings[COORDINATOR_KEY] = coordinator
    base_url = web_app.settings.get("base_url", "/")
    web_app.add_handlers(
        ".*$", [(url_path_join(base_url, path), handler) for path, handler in JOB_ROUTES]
    )

    def started() -> None:
        coordinator.start()
        _write_link(serverapp, home / GATEWAY_LINK)

    serverapp.io_loop.add_callback(started)
    return coordinator


def _write_link(serverapp: Any, path: Any) -> None:
    """Where this server listens and its token, for the subagent tools of its agents."""
    identity = getattr(serverapp, "identity_provider", None)
    token = getattr(identity, "token", None) or getattr(serverapp, "token", "") or ""
    link = {"url": serverapp.connection_url, "token": token, "pid": os.getpid()}
    write_private(path, (json.dumps(link) + "\n").encode("utf-8"))
