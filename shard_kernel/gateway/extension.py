"""What the extension sets up in a ServerApp: the registry, log redaction, origin checks.

Runs inside `jupyter server`, `jupyter lab` and `shard gateway` alike (called by `ShardGateway`
in application.py, which serves the routes under `/shard/api/`); it adds settings keys, adopts
the `shard` kernels notebooks start (adoption.py), makes kernel WebSockets faster
(connection.py: no Nagle delay; agent kernels' WebSockets share one IOPub subscription, which
also notes their activity, activity.py), and reads the server's own security configuration to
warn when it is looser than Shard's baseline.

It also silences one warning that is jupyter_server's and tornado's disagreement, not a
misconfiguration (`_quiet_ping_unit_warning`).
"""

from __future__ import annotations

import logging
from typing import Any

from jupyter_server.base.websocket import WS_PING_INTERVAL

from shard_core.engine.plurals import counted
from shard_core.engine.state import shard_home
from shard_kernel.gateway.activity import watch_agents_on_shared_iopub
from shard_kernel.gateway.adoption import install_adoption
from shard_kernel.gateway.connection import install_connection_class
from shard_kernel.gateway.events import AgentWatcher, EventJournal
from shard_kernel.gateway.events_socket import WATCHER_KEY
from shard_kernel.gateway.handlers import SETTINGS_KEY
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.gateway.security import EXACT_PATTERNS, REDACTOR, install_log_redaction


def load_extension(serverapp: Any, settings: dict[str, Any]) -> tuple[AgentRegistry, AgentWatcher]:
    """The registry and the watcher of its agents, put in `settings` (the web app's, once
    `ShardGateway` hands them on); the watcher starts with the server's loop (application.py)."""
    _protect_logs(serverapp)
    _warn_about_origins(serverapp)
    _quiet_ping_unit_warning(settings)
    registry = AgentRegistry(serverapp.kernel_manager, shard_home(), serverapp.log)
    install_adoption(serverapp.kernel_manager, registry)
    settings[SETTINGS_KEY] = registry
    watcher = AgentWatcher(registry, EventJournal())
    registry.on_change = watcher.poke
    settings[WATCHER_KEY] = watcher
    if install_connection_class(settings):
        watch_agents_on_shared_iopub(serverapp.kernel_manager)
    serverapp.log.info(
        "shard: gateway extension loaded; %s under %s",
        counted(len(registry.manifests), "agent"),
        registry.store.root,
    )
    return registry, watcher


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


class _PingUnitFilter(logging.Filter):
    def __init__(self, interval: object, timeout: object) -> None:
        super().__init__()
        self.text = (
            f"The websocket_ping_timeout ({timeout}) cannot be longer"
            f" than the websocket_ping_interval ({interval})."
        )

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.text)


def _quiet_ping_unit_warning(settings: dict[str, Any]) -> None:
    """Drop tornado's "websocket_ping_timeout (90000) cannot be longer than …" for the values
    jupyter_server itself pings with, and only those.

    jupyter_server's WebSocket handlers (the kernels' channels, `/shard/api/events`) ping with
    their own timer and answer tornado's `ping_interval`/`ping_timeout` with their millisecond
    settings (30000 and 90000 by default); tornado ≥ 6.5 reads the same two numbers as seconds
    and warns, once per server, that 90000 s is longer than 30000 s. No value satisfies both
    readers: tornado wants the timeout no longer than the interval, while jupyter_server closes
    a socket whose last pong is older than the timeout at each ping, so a timeout equal to the
    interval would close live sockets whenever a ping fires late. jupyter_server's pings are
    what keep the sockets alive (tornado's own loop would first ping after 30000 s), so its
    values stay and the warning about them goes; a `websocket_ping_*` setting of the server's
    own that tornado finds inconsistent still warns.
    """
    interval = settings.get("ws_ping_interval", WS_PING_INTERVAL)
    timeout = settings.get("ws_ping_timeout", max(3 * interval, WS_PING_INTERVAL))
    logger = logging.getLogger("tornado.general")
    if not any(isinstance(f, _PingUnitFilter) for f in logger.filters):
        logger.addFilter(_PingUnitFilter(interval, timeout))
