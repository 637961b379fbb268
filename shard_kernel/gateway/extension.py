"""Loading the extension into a ServerApp: the registry, the routes, log redaction, origin checks.

Runs inside `jupyter server`, `jupyter lab` and `shard gateway` alike; it adds routes under
`/shard/api/` and one settings key, makes kernel WebSockets send without Nagle delay (and agent
kernels' WebSockets share one IOPub subscription), and reads the server's own security
configuration to warn when it is looser than Shard's baseline.
"""

from __future__ import annotations

import logging
from typing import Any

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from jupyter_server.utils import url_path_join

from shard_core.engine.state import shard_home
from shard_kernel.gateway.fanout import SharedIopub
from shard_kernel.gateway.handlers import ROUTES, SETTINGS_KEY
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.gateway.security import EXACT_PATTERNS, REDACTOR, install_log_redaction
from shard_kernel.kernelspec import KERNEL_NAME


def load_extension(serverapp: Any) -> AgentRegistry:
    _protect_logs(serverapp)
    _warn_about_origins(serverapp)
    registry = AgentRegistry(serverapp.kernel_manager, shard_home(), serverapp.log)
    web_app = serverapp.web_app
    web_app.settings[SETTINGS_KEY] = registry
    _send_without_delay(web_app.settings)
    base_url = web_app.settings.get("base_url", "/")
    web_app.add_handlers(
        ".*$", [(url_path_join(base_url, path), handler) for path, handler in ROUTES]
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


class _NoDelay:
    """Kernel WebSocket connections that send each message at once (TCP_NODELAY).

    A kernel answers with several small messages back to back (status, execute_input, reply,
    events); with Nagle on, the second one waits for the client's delayed ACK — a 40 ms stall
    measured on loopback in half of the round trips.
    """

    websocket_handler: Any

    def connect(self) -> Any:
        self.websocket_handler.set_nodelay(True)
        return super().connect()  # type: ignore[misc]


class _SharedIopub:
    """Agent kernels' WebSockets share one IOPub subscription (see fanout.py); other kernels'
    connections keep jupyter_server's own, one per WebSocket.

    Agent kernels' connections also skip jupyter_server's IOPub rate limiter. It is meant for
    runaway cell output; an agent kernel sends no `stream` output (what the data limit counts),
    its events are already paced and batched by the kernel, `shard gateway` raised the message
    limit out of the way anyway (SHARD_IOPUB_MSG_RATE), and under `jupyter lab`'s default
    (1000 messages/s) the limiter would drop events of a busy agent. Its traitlets bookkeeping
    was a fifth of the server's CPU per message and client. A client that misses a message
    still finds the gap by `seq` and fills it with `sync`."""

    kernel_manager: Any
    kernel_id: str
    session: Any
    channels: dict[str, Any]
    limit_rate: bool

    def create_stream(self) -> None:
        if getattr(self.kernel_manager, "kernel_name", None) != KERNEL_NAME:
            super().create_stream()  # type: ignore[misc]
            return
        self.limit_rate = False
        identity = self.session.bsession
        for channel in ("shell", "control", "stdin"):
            stream = getattr(self.kernel_manager, f"connect_{channel}")(identity=identity)
            stream.channel = channel
            self.channels[channel] = stream
        self.channels["iopub"] = SharedIopub.view(self.kernel_id, self.kernel_manager)


def _send_without_delay(settings: dict[str, Any]) -> None:
    base = settings.get("kernel_websocket_connection_class")
    if base is None or issubclass(base, _NoDelay):
        return
    mixins: tuple[type, ...] = (_NoDelay,)
    if issubclass(base, ZMQChannelsWebsocketConnection):  # local kernels (not a kernel gateway)
        mixins = (_NoDelay, _SharedIopub)
    settings["kernel_websocket_connection_class"] = type(
        f"NoDelay{base.__name__}", (*mixins, base), {}
    )
