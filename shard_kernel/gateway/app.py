"""`shard gateway`: a headless jupyter_server with the Shard extension and a safe default setup.

Loopback bind, a token always (given, from JUPYTER_TOKEN, or generated — and never printed
unless asked), exact allowed origins, every handler authenticated, no browser and no
token-bearing browser-open file, login cookies that end with the run (`server_app_class`).
Kernels can live behind a kernel gateway (`--gateway-url`). Installed front ends (JupyterLab,
Notebook 7, their language-server bridge) stay off: `jupyter lab` with Shard serves the UI.
"""

from __future__ import annotations

import gc
import os
import secrets
import sys
from dataclasses import dataclass, field
from typing import Any

from shard_core.types.errors import ConfigError
from shard_kernel.gateway import EXTENSION
from shard_kernel.gateway.security import check_bind, origin_config

IDENTITY = "shard_kernel.gateway.security.ShardIdentityProvider"
SPECS = "shard_kernel.local_kernels.ShardSpecManager"
"""Finds the `shard` kernelspec even when an editable install did not put it on Jupyter's path."""
UI_EXTENSIONS = ("jupyterlab", "notebook", "notebook_shim", "nbclassic", "jupyter_lsp")
"""Server extensions that serve a browser front end (and jupyter_lsp, its language servers):
installed beside Shard, the config dirs enable them, and a headless gateway turns them off
(importing and linking them was 4-5 s of a gateway's start; `jupyter lab` serves the UI).
`--set 'ServerApp.jpserver_extensions={...}'` replaces this choice with the user's own."""
SHARD_IOPUB_MSG_RATE = 20000
"""IOPub messages/s per client before jupyter_server drops them (its default, 1000, is one
streaming agent's normal pace; drops are still detected and resynced by seq)."""


@dataclass
class GatewayOptions:
    ip: str = "127.0.0.1"
    port: int = 8888
    token: str | None = None
    allow_origins: list[str] = field(default_factory=list[str])
    show_token: bool = False
    gateway_url: str | None = None
    allow_root: bool = False
    settings: list[str] = field(default_factory=list[str])
    """Extra `Class.trait=value` settings for the server, e.g. `GatewayClient.auth_token=…`."""


def resolve_token(options: GatewayOptions) -> tuple[str, bool]:
    """The server token and whether the user chose it (else it was generated here)."""
    chosen = options.token or os.environ.get("JUPYTER_TOKEN")
    return (chosen, True) if chosen else (secrets.token_urlsafe(32), False)


def server_argv(options: GatewayOptions, token: str) -> list[str]:
    """ServerApp command-line settings (command-line settings win over config files)."""
    argv = [
        f"--ServerApp.ip={options.ip}",
        f"--ServerApp.port={options.port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.open_browser=False",
        "--ServerApp.allow_unauthenticated_access=False",
        f"--ServerApp.identity_provider_class={IDENTITY}",
        f"--IdentityProvider.token={token}",
        f"--ZMQChannelsWebsocketConnection.iopub_msg_rate_limit={SHARD_IOPUB_MSG_RATE}",
    ]
    if not any(s.startswith("ServerApp.jpserver_extensions=") for s in options.settings):
        argv.append(f"--ServerApp.jpserver_extensions={headless_extensions()}")  # else `--set`'s
    if not any(s.startswith("ServerApp.terminals_enabled=") for s in options.settings):
        argv.append("--ServerApp.terminals_enabled=False")  # `--set` turns them on
    for trait, value in origin_config(options.allow_origins).items():
        argv.append(f"--ServerApp.{trait}={value}")
    if options.gateway_url:
        argv.append(f"--GatewayClient.url={options.gateway_url}")
    elif not remote_kernels(options):
        argv.append(f"--ServerApp.kernel_spec_manager_class={SPECS}")
    if options.allow_root:
        argv.append("--ServerApp.allow_root=True")
    argv.extend(f"--{setting}" for setting in options.settings)
    return argv


def headless_extensions() -> dict[str, bool]:
    """The Shard extension on and the front ends off: jupyter_server enables an installed
    extension only where the setting does not name it (`find_server_extensions`)."""
    return {EXTENSION: True, **dict.fromkeys(UI_EXTENSIONS, False)}


def remote_kernels(options: GatewayOptions) -> bool:
    """Kernels live on a kernel gateway (the server then manages specs through it)."""
    configured = any(s.startswith("GatewayClient.url=") for s in options.settings)
    return bool(options.gateway_url or configured or os.environ.get("JUPYTER_GATEWAY_URL"))


def display_url(options: GatewayOptions, port: int, base_url: str, token: str) -> str:
    host = f"[{options.ip}]" if ":" in options.ip else options.ip
    query = f"?token={token}" if options.show_token else ""
    return f"http://{host}:{port}{base_url}{query}"


def server_app_class() -> type:
    """jupyter_server's ServerApp with a cookie secret made fresh for each run, unless the
    secret or its file is configured.

    jupyter_server keeps the secret in the runtime dir across restarts, and its login cookie
    does not depend on the token: a browser that logged in with an old token stayed logged in
    after the token was rotated. A fresh secret logs everyone out at each restart (a browser
    opens the URL with the token again); it is never written to a file."""
    from jupyter_server.serverapp import ServerApp
    from traitlets import default

    class GatewayServerApp(ServerApp):
        def find_server_extensions(self) -> None:
            # the first step after the config is read: jupyter_server's own root check comes
            # only in start_app, after every extension has loaded and logged for seconds
            refuse_root(self.allow_root)
            super().find_server_extensions()

        @default("cookie_secret")
        def _default_cookie_secret(self) -> bytes:
            if configured(self, "cookie_secret_file"):
                return super()._default_cookie_secret()
            return secrets.token_bytes(32)

    return GatewayServerApp


def refuse_root(allowed: bool) -> None:
    """Running as root needs `--allow-root` (or `ServerApp.allow_root`), as jupyter_server says."""
    if allowed or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    raise ConfigError(
        "running as root is refused (a kernel's tools would run as root too); "
        "pass --allow-root to run anyway, e.g. in a container"
    )


def configured(app: Any, trait: str) -> bool:
    """The trait was set in a config file, on the command line or with `--set`."""
    return any(trait in app.config[s] for s in type(app).section_names() if s in app.config)


def run(options: GatewayOptions) -> int:
    """Start the server and serve until interrupted or terminated."""
    from shard_kernel.lazy_iri import defer

    defer()  # before jupyter_server imports jsonschema: 2.4 CPU-s of its start
    token, chosen = resolve_token(options)
    check_bind(options.ip, token if chosen else None, options.allow_origins)
    app = server_app_class().instance()
    app.initialize(argv=server_argv(options, token))
    app.start_app()
    # The server's startup objects live as long as it does: keep them out of the full
    # collections (a 0.25 s pause each here, which a streaming agent's clients all waited for).
    gc.freeze()
    url = display_url(options, app.port, app.base_url, token)
    print(f"Shard gateway: {url}", flush=True)
    if not options.show_token:
        print(
            "token: elided (--show-token prints it; `jupyter server list` shows it to you)",
            flush=True,
        )
    sys.stdout.flush()
    app.start_ioloop()
    return 0
