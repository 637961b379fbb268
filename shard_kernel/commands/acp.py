"""`shard acp`: run Shard as an Agent Client Protocol agent on stdin/stdout."""

from __future__ import annotations

import argparse
import asyncio

from shard_kernel.commands.common import add_agent_options

EXAMPLES = """examples:
  shard acp                                   # what an ACP host (Zed, marimo, jupyter-ai) runs
  shard acp --model anthropic/claude-sonnet-4-5 --allow 'Bash(pytest:*)'
  shard acp --mode plan --trust-project
  shard acp --gateway http://127.0.0.1:8888/ --token TOKEN   # sessions are gateway agents
  shard acp --gateway auto                    # a running gateway's agents, else this process

The host sends the workspace (session/new cwd); --cwd is not used. Protocol messages only go
to stdout; notes and logs go to stderr. How hosts run it: docs/ACP.md
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "acp",
        help="serve the Agent Client Protocol on stdio (Zed, marimo, jupyter-ai)",
        description="Run Shard as an ACP agent: JSON-RPC over stdin/stdout, protocol version 1.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_agent_options(parser)
    parser.add_argument(
        "--gateway",
        metavar="URL",
        help="make each session an agent of the Shard gateway at URL (the Lab panel, "
        "%%shard attach and other tabs see it live and can answer its prompts); `auto`: "
        "$SHARD_GATEWAY_URL or a running local gateway if there is one, else this process",
    )
    parser.add_argument("--token", help="the gateway's token (default: $SHARD_GATEWAY_TOKEN)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from shard_kernel.acp import AcpOptions, serve

    options = AcpOptions(
        model=args.model,
        mode=args.mode,
        allow=list(args.allow),
        deny=list(args.deny),
        agent_definition=args.agent_definition,
        trust_project=args.trust_project,
        gateway=args.gateway,
        token=args.token,
    )
    return asyncio.run(serve(options))
