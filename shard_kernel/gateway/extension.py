"""Loading the extension into a ServerApp: the registry, the routes, log redaction, origin checks.

Runs inside `jupyter server`, `jupyter lab` and `shard gateway` alike; it adds routes under
`/shard/api/` and one settings key, makes kernel WebSockets send without Nagle delay, and reads
the server's own security configuration to warn when it is looser than Shard's baseline.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join

from shard_core.engine.state import shard_home
from shard_kernel.gateway.handlers import ROUTES, SETTINGS_KEY
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.gateway.security import EXACT_PATTERNS, REDACTOR, install_log_redaction


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


def _send_without_delay(settings: dict[str, Any]) -> None:
    base = settings.get("kernel_websocket_connection_class")
    if base is None or issubclass(base, _NoDelay):
        return
    settings["kernel_websocket_connection_class"] = type(
        f"NoDelay{base.__name__}", (_NoDelay, base), {}
    )
