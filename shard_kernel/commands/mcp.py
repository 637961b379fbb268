"""`shard mcp list` and `shard mcp test NAME`: the MCP servers an agent here would use.

`list` shows every configured server (config.json `mcpServers`, and the project's `.mcp.json`
with --trust-project) with its origin, transport, and the tools it offered when it last started
(none started by `list`). `test NAME` starts that one server, lists its tools, and stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from shard_core.capabilities.mcp import (
    McpCapability,
    McpServer,
    McpUnavailableError,
    ServerConfig,
    mcp_capability,
)
from shard_core.engine.config import load_config
from shard_core.engine.state import shard_home
from shard_kernel.exit_codes import ExitCode

EXAMPLES = """examples:
  shard mcp list
  shard mcp list --trust-project --json
  shard mcp test time
  shard mcp approve docs --trust-project   # a project server, as .mcp.json has it now
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="list and test MCP servers",
        description="List the configured MCP servers, or start one and list its tools.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="mcp_action", metavar="ACTION")
    listing = actions.add_parser("list", help="configured servers and their known tools")
    test = actions.add_parser("test", help="start one server and list its tools")
    test.add_argument("name", help="the server's name in mcpServers")
    approve = actions.add_parser(
        "approve", help="approve a project server's .mcp.json entry as it is now"
    )
    approve.add_argument("name", help="the server's name in .mcp.json")
    for sub in (listing, test, approve):
        sub.add_argument("--cwd", type=Path, default=Path("."), help="the project (default: .)")
        sub.add_argument("--trust-project", action="store_true", help="read .mcp.json too")
        sub.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_list)
    test.set_defaults(handler=run_test)
    approve.set_defaults(handler=run_approve)
    parser.set_defaults(handler=lambda _args: (parser.print_help(), 2)[1])


def _capability(args: argparse.Namespace) -> McpCapability:
    cwd = args.cwd.expanduser().resolve()
    return mcp_capability(
        load_config(), cwd=cwd, home=shard_home(), env=os.environ, trusted=args.trust_project
    )


def run_list(args: argparse.Namespace) -> int:
    capability = _capability(args)
    capability.start_unknown = False

    async def load() -> None:  # the catalog's tools; no server is started
        await capability(_NoApi())  # pyright: ignore[reportArgumentType]
        await capability.close()

    asyncio.run(load())
    rows = [_row(s, capability) for s in capability.servers.values()]
    rows += [_skipped_row(c) for c in capability.skipped.values()]
    if args.json:
        print(json.dumps({"servers": rows, "notes": capability.diagnostics}, indent=2))
        return ExitCode.OK
    if not rows:
        print("No MCP servers configured (config.json mcpServers; .mcp.json with --trust-project).")
    for row in rows:
        print(f"{row['name']}  ({row['origin']}, {row['type']}: {row['target']})  {row['status']}")
        for tool in row["tools"]:
            print(f"  {tool}")
    for note in capability.diagnostics:
        print(f"note: {note}")
    return ExitCode.OK


def run_approve(args: argparse.Namespace) -> int:
    """A person approves a project server from the terminal (what a headless run cannot ask)."""
    capability = _capability(args)
    config = capability.configs.servers.get(args.name)
    if config is None or config.origin != "project":
        known = [n for n, c in capability.configs.servers.items() if c.origin == "project"]
        names = ", ".join(sorted(known)) or "none; is --trust-project given?"
        print(f"shard: error: no project MCP server {args.name!r} ({names})", file=sys.stderr)
        return ExitCode.BAD_INPUT
    capability.approve_project_server(config)
    print(f"{config.name}: approved as .mcp.json has it now ({config.type}: {config.target})")
    return ExitCode.OK


def run_test(args: argparse.Namespace) -> int:
    capability = _capability(args)
    config = capability.configs.servers.get(args.name)
    if config is None:
        known = ", ".join(sorted(capability.configs.servers)) or "none"
        print(f"shard: error: no MCP server {args.name!r} (configured: {known})", file=sys.stderr)
        return ExitCode.BAD_INPUT
    capability.configs.servers = {args.name: config}

    async def start() -> tuple[McpServer | None, float, str | None]:
        began = time.monotonic()
        await capability(_NoApi())  # pyright: ignore[reportArgumentType]
        server = capability.servers.get(args.name)
        if server is None:  # a project server nobody approved: `shard mcp approve` first
            return None, 0.0, capability.diagnostics[-1]
        try:
            await server.ensure()
            problem = None
        except McpUnavailableError as exc:
            problem = str(exc)
        await capability.close()
        return server, time.monotonic() - began, problem

    server, seconds, problem = asyncio.run(start())
    if problem or server is None:
        print(f"shard: error: {problem}", file=sys.stderr)
        return ExitCode.FAILED
    row = _row(server, capability)
    if args.json:
        print(json.dumps({**row, "seconds": round(seconds, 2)}, indent=2))
        return ExitCode.OK
    print(f"{server.name}: started in {seconds:.1f} s ({server.server_info or 'no server info'})")
    for tool in capability.tools.values():
        summary = (tool.listed.description or "").strip().splitlines()[:1]
        print(f"  {tool.name}: {summary[0] if summary else '(no description)'}")
    return ExitCode.OK


def _row(server: McpServer, capability: McpCapability) -> dict[str, Any]:
    config = server.config
    tools = [t.name for t in capability.tools.values() if t.server is server]
    status = server.state + (f": {server.error}" if server.error else "")
    if server.state == "stopped":
        status = "not running (tools from its last start)" if tools else "not running"
    return {"name": server.name, "origin": config.origin, "type": config.type,
            "target": config.target, "status": status, "tools": tools}  # fmt: skip


def _skipped_row(config: ServerConfig) -> dict[str, Any]:
    status = f"not approved: new or changed since approved (shard mcp approve {config.name})"
    return {"name": config.name, "origin": config.origin, "type": config.type,
            "target": config.target, "status": status, "tools": []}  # fmt: skip


class _NoApi:
    """What the capability registers into when nothing runs an agent: nothing is kept."""

    def register_tool(self, tool: object) -> None: ...

    def register_command(self, name: str, description: str, handler: object) -> None: ...

    @property
    def ui(self) -> _Notices:
        return _Notices()


class _Notices:
    async def notify(self, title: str, message: str = "") -> None:
        print(f"{title}: {message}", file=sys.stderr)

    async def confirm(self, title: str, message: str = "") -> bool | None:
        return None  # no question from list/test: `shard mcp approve` is the person's answer
