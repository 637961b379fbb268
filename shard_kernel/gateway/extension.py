"""Loading the extension into a ServerApp: the registry, the routes, log redaction, origin checks.

Runs inside `jupyter server`, `jupyter lab` and `shard gateway` alike; it adds routes under
`/shard/api/` and one settings key, adopts the `shard` kernels notebooks start (adoption.py),
makes kernel WebSockets faster (connection.py: no Nagle delay; agent kernels' WebSockets share
one IOPub subscription, which also notes their activity, activity.py), and reads the server's
own security configuration to warn when it is looser than Shard's baseline.
"""

from __future__ import annotations

import logging
from typing import Any

from jupyter_server.utils import url_path_join

from shard_core.engine.state import shard_home
from shard_kernel.gateway.activity import watch_agents_on_shared_iopub
from shard_kernel.gateway.adoption import install_adoption
from shard_kernel.gateway.connection import install_connection_class
from shard_kernel.gateway.events import AgentWatcher, EventJournal
from shard_kernel.gateway.events_socket import SOCKET_ROUTES, WATCHER_KEY
from shard_kernel.gateway.handlers import ROUTES, SETTINGS_KEY
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.gateway.security import EXACT_PATTERNS, REDACTOR, install_log_redaction


def load_extension(serverapp: Any) -> AgentRegistry:
    _protect_logs(serverapp)
    _warn_about_origins(serverapp)
    registry = AgentRegistry(serverapp.kernel_manager, shard_home(), serverapp.log)
    install_adoption(serverapp.kernel_manager, registry)
    web_app = serverapp.web_app
    web_app.settings[SETTINGS_KEY] = registry
    watcher = AgentWatcher(registry, EventJournal())
    registry.on_change = watcher.poke
    web_app.settings[WATCHER_KEY] = watcher
    serverapp.io_loop.add_callback(watcher.start)
    if install_connection_class(web_app.settings):
        watch_agents_on_shared_iopub(serverapp.kernel_manager)
    base_url = web_app.settings.get("base_url", "/")
    routes = (*ROUTES, *SOCKET_ROUTES)
    web_app.add_handlers(
        ".*$", [(url_path_join(base_url, path), handler) for path, handler in routes]
    )
    serverapp.log.info(
        "shard: gateway extension loaded; %d agent(s) under %s",
        len(registry.manifests),
        registry.store.root,
    )
    return registry


def _protect_logs(serverapp: Any) -> None:
    _skip_unshown_records(serverapp.log)
    REDACTOR.add_environment()
    identity = getattr(serverapp, "identity_provider", None)
    REDACTOR.add(getattr(identity, "token", None), getattr(serverapp, "token", None))
    try:
        from jupyter_server.gateway.gateway_client import GatewayClient

        client = GatewayClient.instance()
        REDACTOR.add(client.auth_token, client.client_key, client.http_pwd)
    except Exception:  # no gateway client configured: nothing to add
        pass
    install_log_redaction()


def _skip_unshown_records(log: Any) -> None:
    """Raise the server logger's level to what its handlers show.

    traitlets leaves the logger at DEBUG and filters in the handlers, so every `log.debug` call
    — jupyter_server makes one per IOPub message, in its activity tracker — built a record and
    ran it through the redacting record factory, only for the handler to drop it: ~5 % of the
    server's CPU while it relays a streaming agent. A handler added later at a lower level needs
    the logger level lowered again (`--log-level=DEBUG` sets both).
    """
    if not isinstance(log, logging.Logger) or not log.handlers:
        return
    shown = min(handler.level for handler in log.handlers)
    if log.level < shown:
        log.setLevel(shown)


def _warn_about_origins(serverapp: Any) -> None:
    origin = getattr(serverapp, "allow_origin", "") or ""
    if origin in ("*", "null"):
        serverapp.log.warning(
            "shard: ServerApp.allow_origin=%r lets any page drive your agents; "
            "list exact origins instead",
            origin,
        )
    pattern = getattr(serverapp, "allow_origin_pat", "") or ""
    if pattern and pattern not in EXACT_PATTERNS:
        serverapp.log.warning(
            "shard: ServerApp.allow_origin_pat is a regular expression; make sure it only "
            "matches exact origins (shard gateway --allow-origin writes one that does)"
        )
