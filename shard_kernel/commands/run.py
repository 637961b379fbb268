"""`shard run`: one headless turn through the SDK, printed as a transcript or as JSONL."""

from __future__ import annotations

import argparse
import asyncio
import sys

from shard_core.protocol.events import Event
from shard_core.protocol.framing import encode_record
from shard_core.sdk import create_agent
from shard_kernel.commands.common import add_agent_options
from shard_kernel.terminal.bridge import TerminalBridge
from shard_kernel.terminal.render import TerminalRenderer

EXAMPLES = """examples:
  shard run "explain what this project does"
  shard run --model scripted/demo --cwd demo-project "fix the failing test"
  shard run --allow 'Bash(pytest:*)' --json "run the tests" > events.jsonl
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "run",
        help="run one agent turn headless",
        description="Run one agent turn in the current process and print what it does.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_agent_options(parser)
    parser.add_argument("--json", action="store_true", help="print events as JSONL")
    parser.add_argument("--resume", metavar="SESSION", help="continue a session (id or .jsonl)")
    parser.add_argument("prompt", help="what to ask the agent")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    interactive = sys.stdin.isatty() and not args.json
    agent = await create_agent(
        cwd=args.cwd,
        model=args.model,
        mode=args.mode,
        allow=args.allow,
        deny=args.deny,
        trust_project=args.trust_project,
        resume=args.resume,
        ui=TerminalBridge() if interactive else None,
    )
    renderer = TerminalRenderer()
    if args.json:

        def write(event: Event) -> None:
            sys.stdout.buffer.write(encode_record(event))
            sys.stdout.buffer.flush()

        agent.events.subscribe(write)
    else:
        agent.events.subscribe(renderer)
        if agent.session.config.demo:
            print(renderer.style("· demo: scripted provider, no model is called", "dim"))
    try:
        end = await agent.run(args.prompt)
    finally:
        await agent.close()
        sys.stdout.flush()
    return {"completed": 0, "aborted": 130}.get(end.reason, 1)
