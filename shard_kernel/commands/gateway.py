"""`shard gateway`: a headless jupyter_server with the Shard agent registry (see gateway/app.py)."""

from __future__ import annotations

import argparse

EXAMPLES = """examples:
  shard gateway                                  # 127.0.0.1:8888, generated token (elided)
  shard gateway --port 9000 --show-token
  JUPYTER_TOKEN=... shard gateway --ip 10.0.0.5 --allow-origin https://lab.example.org
  shard gateway --gateway-url http://127.0.0.1:8889 --set GatewayClient.auth_token=...

login cookies: each start makes a new cookie secret, so a browser logged in before a restart
  (or with a token since rotated) must log in again with the current token. To keep logins
  across restarts, configure one: --set ServerApp.cookie_secret_file=PATH (or cookie_secret).

REST: GET/POST /shard/api/agents, GET/DELETE /shard/api/agents/ID,
      POST /shard/api/agents/ID/attach, GET /shard/api/agents/ID/events?since=N&limit=M
pushed: WebSocket /shard/api/events[?epoch=E&since=N] (agent_spawned, agent_exited, …)

remote kernels (--gateway-url) keep their state in this server's SHARD_HOME (sent to them as
  KERNEL_SHARD_HOME): put it on a volume both see, or set SHARD_KERNEL_HOME to the kernels' path.
  Their subagent tools reach this server at its own URL (sent as KERNEL_SHARD_GATEWAY_URL, with
  the token): set SHARD_KERNEL_GATEWAY_URL when the kernels reach it at another address.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "gateway",
        help="run a headless Jupyter server that supervises agent kernels",
        description="Run jupyter_server headless with the Shard agent registry "
        "(REST under /shard/api/agents; agents' WebSockets at /api/kernels/<id>/channels).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_gateway_options(parser)
    parser.set_defaults(handler=handle)


def add_gateway_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ip", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8888, help="port (default: 8888)")
    parser.add_argument(
        "--token", help="the access token (default: $JUPYTER_TOKEN, else a generated one)"
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="an exact origin (scheme://host[:port]) browsers may connect from; repeatable",
    )
    parser.add_argument("--show-token", action="store_true", help="print the URL with the token")
    parser.add_argument("--gateway-url", help="run kernels on this kernel gateway")
    parser.add_argument(
        "--allow-root", action="store_true", help="allow running as root (containers)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="Class.trait=VALUE",
        dest="settings",
        help="any other jupyter_server setting; repeatable",
    )


def handle(args: argparse.Namespace) -> int:
    from shard_kernel.gateway.app import GatewayOptions, run

    return run(
        GatewayOptions(
            ip=args.ip,
            port=args.port,
            token=args.token,
            allow_origins=args.allow_origin,
            show_token=args.show_token,
            gateway_url=args.gateway_url,
            allow_root=args.allow_root,
            settings=args.settings,
        )
    )
