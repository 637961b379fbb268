"""`shard extensions list`: the extensions found here and what each registered, replaced or
failed to do (entry points, SHARD_HOME/extensions, and the project's `.shard/extensions` only
with --trust-project). The bundled ones are listed inside an agent with `/extensions`."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from shard_core.capabilities.commands import extensions_table
from shard_core.engine.extension_host import ExtensionHost
from shard_core.engine.state import shard_home
from shard_kernel.exit_codes import ExitCode


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "extensions", help="list extensions", description="List extensions and diagnostics."
    )
    actions = parser.add_subparsers(dest="extensions_action", metavar="ACTION")
    listing = actions.add_parser("list", help="what each extension registered, replaced, failed")
    listing.add_argument("--cwd", type=Path, default=Path("."), help="the project (default: here)")
    listing.add_argument("--trust-project", action="store_true", help="load project extensions")
    listing.add_argument("--json", action="store_true", help="print the diagnostics as JSON")
    listing.set_defaults(handler=run_list)
    parser.set_defaults(handler=lambda _args: (parser.print_help(), 2)[1])


async def _load(cwd: Path, trust_project: bool) -> ExtensionHost:
    host = ExtensionHost()
    await host.install_entry_points()
    await host.install_folder(shard_home().expanduser() / "extensions", trusted=True)
    await host.install_folder(cwd / ".shard" / "extensions", trusted=trust_project)
    await host.shutdown()  # listed, not kept: their disposers run now
    return host


def run_list(args: argparse.Namespace) -> int:
    host = asyncio.run(_load(args.cwd.expanduser().resolve(), args.trust_project))
    if args.json:
        rows = [{"extension": d.extension, "level": d.level, "message": d.message}
                for d in host.diagnostics]  # fmt: skip
        print(json.dumps({"installed": host.installed, "diagnostics": rows}, indent=2))
    else:
        print(extensions_table(host))
    return ExitCode.OK
