"""Shard's jupyter_server extension: the agent registry REST API under `/shard/api/agents`.

Enabled for `jupyter server` / `jupyter lab` by `jupyter-config/jupyter_server_config.d/
shard_kernel.gateway.json`, and always by `shard gateway` (a headless server, see `app.py`).
The extension is an `ExtensionApp`, `ShardGateway` (application.py), imported only when
jupyter_server asks: a client of the gateway (`client.py`) imports this package too.
"""

from __future__ import annotations

from typing import Any

EXTENSION = "shard_kernel.gateway"


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from shard_kernel.gateway.application import ShardGateway

    return [{"module": EXTENSION, "app": ShardGateway}]
