"""Shard's jupyter_server extension: the agent registry REST API under `/shard/api/agents`.

Enabled for `jupyter server` / `jupyter lab` by `jupyter-config/jupyter_server_config.d/
shard_kernel.gateway.json`, and always by `shard gateway` (a headless server, see `app.py`).
"""

from __future__ import annotations

from typing import Any

EXTENSION = "shard_kernel.gateway"


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": EXTENSION}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from shard_kernel.gateway.extension import load_extension
    from shard_kernel.gateway.jobs import install_jobs

    install_jobs(serverapp, load_extension(serverapp))


async def _unload_jupyter_server_extension(serverapp: Any) -> None:
    """The coordinator lets go of its children (their unfinished runs stay `running` on disk and
    read as interrupted at the next start). jupyter_server 2 does not call this at stop; the
    coordinator also watches `ServerApp.stop()`'s flag (see `install_jobs`)."""
    from shard_kernel.gateway.jobs import COORDINATOR_KEY

    coordinator = serverapp.web_app.settings.get(COORDINATOR_KEY)
    if coordinator is not None:
        await coordinator.close()
