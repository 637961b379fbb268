"""`shard hooks list` and `shard hooks test EVENT`: the command hooks an agent here would run.

`list` shows every configured hook (config.json `"hooks"`, and the project's
`.shard/settings.json` with --trust-project) with its event, matcher, command, timeout and
source, and the notes about entries that were skipped. `test EVENT` runs that event's matching
hooks once against a sample event (`--tool`, `--input` for the tool events) and prints each
run: exit code, duration, and what it decided (reported, not applied).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, cast

from shard_core.capabilities.assembly import credential_files, sandbox_policy
from shard_core.capabilities.hooks import HookConfig, HooksCapability, load_hooks
from shard_core.capabilities.hooks.config import EVENTS
from shard_core.capabilities.hooks.sample import try_event
from shard_core.engine.config import load_config
from shard_core.tools.sandbox import Sandbox
from shard_core.types import JsonObject
from shard_kernel.exit_codes import ExitCode
from shard_kernel.terminal.render import hook_run_text

EXAMPLES = """examples:
  shard hooks list
  shard hooks list --trust-project --json
  shard hooks test PreToolUse --tool bash --input '{"command": "rm -rf build"}'
  shard hooks test SessionStart
  shard hooks test Notification --tool idle_prompt
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hooks",
        help="list command hooks or run one against a sample event",
        description="List the configured command hooks, or run an event's hooks once.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="hooks_action", metavar="ACTION")
    listing = actions.add_parser("list", help="configured hooks and notes about bad entries")
    test = actions.add_parser("test", help="run an event's hooks against a sample event")
    test.add_argument("event", help=f"one of {', '.join(EVENTS)}")
    test.add_argument(
        "--tool",
        default="bash",
        help="the tool of a tool event (default: bash); Notification: idle_prompt for the idle one",
    )
    test.add_argument("--input", help="the tool's input as a JSON object")
    for sub in (listing, test):
        sub.add_argument("--cwd", type=Path, default=Path("."), help="the project (default: .)")
        sub.add_argument(
            "--trust-project", action="store_true", help="read .shard/settings.json too"
        )
        sub.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_list)
    test.set_defaults(handler=run_test)
    parser.set_defaults(handler=lambda _args: (parser.print_help(), 2)[1])


def _config(args: argparse.Namespace) -> tuple[Path, HookConfig]:
    cwd = args.cwd.expanduser().resolve()
    hooks = cast(dict[str, Any], load_config().hooks)
    return cwd, load_hooks(hooks, cwd=cwd, trusted=args.trust_project)


def run_list(args: argparse.Namespace) -> int:
    _, config = _config(args)
    rows = [
        {"event": h.event, "matcher": h.matcher, "command": h.command, "timeout": h.timeout,
         "source": h.source}
        for h in config.hooks
    ]  # fmt: skip
    if args.json:
        print(json.dumps({"hooks": rows, "notes": config.diagnostics}, indent=2))
        return ExitCode.OK
    if not rows:
        print('No hooks configured ("hooks" in config.json, .shard/settings.json if trusted).')
    for row in rows:
        matcher = row["matcher"] or "*"
        print(
            f"{row['event']}  {matcher}  {row['command']}  ({row['timeout']:g} s, {row['source']})"
        )
    for note in config.diagnostics:
        print(f"note: {note}")
    return ExitCode.OK


def run_test(args: argparse.Namespace) -> int:
    if args.event not in EVENTS:
        print(f"shard: error: unknown hook event {args.event!r}; known: {', '.join(EVENTS)}",
              file=sys.stderr)  # fmt: skip
        return ExitCode.BAD_INPUT
    try:
        tool_input = json.loads(args.input) if args.input else None
    except ValueError as exc:
        print(f"shard: error: --input is not JSON: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if tool_input is not None and not isinstance(tool_input, dict):
        print("shard: error: --input must be a JSON object", file=sys.stderr)
        return ExitCode.BAD_INPUT
    cwd, config = _config(args)
    settings = load_config()
    policy = sandbox_policy(settings.sandbox, credential_files(settings))
    hooks = HooksCapability(cwd, trusted=args.trust_project, sandbox=Sandbox(policy))
    hooks.config = config
    runs = asyncio.run(
        try_event(hooks, args.event, tool=args.tool, input=cast(JsonObject | None, tool_input))
    )
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in runs], indent=2))
    elif not runs:
        print(f"No {args.event} hook matches{f' {args.tool}' if args.event in _TOOL else ''}.")
    for run in [] if args.json else runs:
        print(hook_run_text(run))
    for note in config.diagnostics:
        print(f"note: {note}", file=sys.stderr)
    return ExitCode.FAILED if any(r.decision == "error" for r in runs) else ExitCode.OK


_TOOL = ("PreToolUse", "PostToolUse", "PermissionRequest")
