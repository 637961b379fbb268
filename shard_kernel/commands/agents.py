"""`shard agents list|create|kill|attach`: the agents of a running gateway, from a terminal.

The gateway is found the way `%shard connect` finds it: `--url` (and `--token`), else
$SHARD_GATEWAY_URL / $SHARD_GATEWAY_TOKEN, else a running local Jupyter server whose Shard API
answers (its token read from Jupyter's runtime files). `shard agent --stdio` is something else:
one agent of its own over stdin/stdout, no gateway.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from shard_core.protocol import AgentInfo
from shard_kernel.exit_codes import ExitCode

EXAMPLES = """examples:
  shard agents list
  shard agents create --cwd ~/proj --name fixer --model anthropic/claude-sonnet-4-5
  shard agents attach fixer --prompt "run the tests and fix what fails"
  shard agents attach fixer --observer          # follow it; Ctrl-C detaches
  shard agents kill fixer
  shard agents list --url http://127.0.0.1:8888/ --json   # token: $SHARD_GATEWAY_TOKEN
"""
HEADLESS = ("deny", "allow_if_rule_matches", "queue")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "agents",
        help="list, create, kill or attach to a gateway's agents",
        description="Drive the agents of a running gateway (`shard gateway`, or `jupyter lab` "
        "with Shard installed).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every agent, running or stopped")
    create = actions.add_parser("create", help="a new agent, started")
    create.add_argument("--cwd", default=".", help="workspace directory (default: .)")
    create.add_argument("--model", help="e.g. anthropic/claude-sonnet-4-5, scripted/demo")
    create.add_argument("--mode", default="build", choices=("plan", "build"))
    create.add_argument("--allow", action="append", default=[], metavar="RULE")
    create.add_argument("--deny", action="append", default=[], metavar="RULE")
    create.add_argument("--name", help="a unique name (default: after the folder)")
    create.add_argument("--headless-policy", choices=HEADLESS, default="deny")
    create.add_argument("--permission-timeout", type=float, default=60.0, metavar="SECONDS")
    kill = actions.add_parser("kill", help="stop an agent's kernel (its session stays)")
    kill.add_argument("agent", help="id, name, or a prefix only one agent has")
    attach = actions.add_parser("attach", help="follow an agent; answer its prompts here")
    attach.add_argument("agent", help="id, name, or a prefix only one agent has")
    attach.add_argument("--prompt", help="send this prompt, return when its turn ends")
    attach.add_argument(
        "--observer", action="store_true", help="watch only: never answer permission prompts"
    )
    for action in (listing, create, kill, attach):
        action.add_argument("--url", help="the gateway (default: $SHARD_GATEWAY_URL, else found)")
        action.add_argument("--token", help="its token (default: $SHARD_GATEWAY_TOKEN)")
        if action is not attach:
            action.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from shard_kernel.remote.link import ENV_TOKEN, ENV_URL, GatewayError, NoGatewayError
    from shard_kernel.terminal.escape import terminal_safe  # attach colours its own output

    try:
        return asyncio.run(_run(args))
    except NoGatewayError:
        print(
            "shard agents: no Shard gateway found: start one with `shard gateway` (or "
            f"`jupyter lab` with Shard installed), then give --url URL (token in {ENV_TOKEN}) "
            f"or set {ENV_URL}",
            file=sys.stderr,
        )
        return ExitCode.FAILED
    except GatewayError as exc:
        print(f"shard agents: {terminal_safe(str(exc))}", file=sys.stderr)
        return ExitCode.FAILED
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


async def _run(args: argparse.Namespace) -> int:
    from shard_kernel.remote.hub import resolve
    from shard_kernel.remote.link import connect, find_gateway

    link = await (connect(args.url, args.token) if args.url else find_gateway())
    if args.token and not args.url:
        link = type(link)(link.url, args.token, link.source)
    if args.action == "list":
        agents = await link.agents()
        _print(args, [a.model_dump(mode="json") for a in agents], _table(agents))
        return ExitCode.OK
    if args.action == "create":
        info = await link.create(_create_body(args))
        _print(args, info.model_dump(mode="json"), f"{info.name} {info.id} {info.runtime_state}")
        return ExitCode.OK if info.runtime_state == "running" else ExitCode.FAILED
    info = resolve(await link.agents(), args.agent, link.url)
    if args.action == "kill":
        info = await link.kill(info.id)
        _print(args, info.model_dump(mode="json"), f"{info.name} {info.id} {info.runtime_state}")
        return ExitCode.OK
    from shard_kernel.remote.terminal import TerminalSession

    session = TerminalSession(link, info.id, role="observer" if args.observer else "interactive")
    return await session.run(args.prompt)


def _create_body(args: argparse.Namespace) -> dict[str, Any]:
    from pathlib import Path

    body: dict[str, Any] = {
        "cwd": str(Path(args.cwd).expanduser().resolve()),
        "mode": args.mode,
        "headless_policy": args.headless_policy,
        "permission_timeout": args.permission_timeout,
        "permissions": {"allow": args.allow, "deny": args.deny},
    }
    if args.model:
        body["model"] = args.model
    if args.name:
        body["name"] = args.name
    return body


def _table(agents: list[AgentInfo]) -> str:
    if not agents:
        return "no agents (shard agents create --cwd DIR makes one)"
    rows = [("NAME", "ID", "STATE", "STATUS", "MODE", "CLIENTS", "MODEL", "CWD")]
    rows += [
        (a.name, a.id, a.runtime_state, a.status, a.mode, str(a.clients), a.model, a.cwd)
        for a in agents
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1]
        for r in rows
    )


def _print(args: argparse.Namespace, data: Any, text: str) -> None:
    from shard_kernel.terminal.escape import terminal_safe

    if getattr(args, "json", False):
        print(json.dumps(data, indent=2))
    else:
        print(terminal_safe(text))
