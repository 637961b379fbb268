"""`shard run`: one headless turn through the SDK, printed as a transcript or as JSONL."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from shard_core.engine.config import load_config
from shard_core.protocol.events import Event, TurnEndEvent
from shard_core.protocol.framing import encode_record
from shard_core.providers.models import FIRST_CONTACT, NO_MODEL, resolve_default_model
from shard_core.providers.unconfigured import unconfigured
from shard_core.sdk import create_agent, registered_providers
from shard_kernel.commands.common import add_agent_options
from shard_kernel.denials import DenialWatch
from shard_kernel.exit_codes import ExitCode, for_turn
from shard_kernel.notebook_tools import NotebookSetup, notebook_extension
from shard_kernel.terminal.escape import terminal_safe

EXAMPLES = """examples:
  shard run "explain what this project does"
  shard run --model scripted/demo --cwd demo-project "fix the failing test"
  shard run --allow 'Bash(pytest:*)' --json "run the tests" > events.jsonl
  shard run --agent reviewer "review the last commit"

exit status:
  0    the turn completed
  1    the turn ended at the step limit, or another failure
  2    bad input: the command line, an option, the model string, a rule, a session
  3    the turn completed but was blocked by permission denials: a tool call was denied
       and no file-changing or command call succeeded after the last denial (with no
       terminal to ask on, the headless policy denies what no --allow rule allows)
  4    the model provider failed (auth, a rejected request, retries exhausted)
  5    no model is configured (no key, no config.json model, no --model): nothing ran
  130  interrupted
every command's exit status: docs/EXIT-CODES.md
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
    if not (args.model or args.agent_definition) and await no_model_configured():
        return first_contact()  # before the agent, which would leave an empty session behind
    diagnostics: list[str] = []
    ui = None
    if interactive:  # a terminal to ask on
        from shard_kernel.terminal.bridge import TerminalBridge

        ui = TerminalBridge()
    agent = await create_agent(
        cwd=args.cwd,
        model=args.model,
        mode=args.mode,
        agent_definition=args.agent_definition,
        allow=args.allow,
        deny=args.deny,
        trust_project=args.trust_project,
        resume=args.resume,
        ui=ui,
        diagnostics=diagnostics,
        extensions=[notebook_extension(NotebookSetup.from_env(os.environ))],
    )
    if unconfigured(agent.session.provider):  # e.g. an agent definition that names none
        await agent.close()
        return first_contact()
    if args.json:  # the events as JSONL: no renderer (the terminal's is imported for a transcript)

        def write(event: Event) -> None:
            sys.stdout.buffer.write(encode_record(event))
            sys.stdout.buffer.flush()

        agent.events.subscribe(write)
        for line in diagnostics:  # stdout is the event stream: notes go to stderr
            print(f"shard: note: {terminal_safe(line)}", file=sys.stderr)
    else:
        from shard_kernel.terminal.render import TerminalRenderer

        renderer = TerminalRenderer()
        agent.events.subscribe(renderer)
        if agent.session.config.demo:
            print(renderer.style("· demo: scripted provider, no model is called", "dim"))
        for line in diagnostics:  # e.g. a project resource skipped without --trust-project
            print(renderer.style(f"· {line}", "yellow"))
    denials = DenialWatch()
    agent.events.subscribe(denials)
    try:
        end = await agent.run(args.prompt)
    finally:
        await agent.close()
        sys.stdout.flush()
    return exit_status(end, blocked=denials.blocked)


async def no_model_configured() -> bool:
    """No provider, bundled or an extension's (SHARD_HOME/extensions, entry points), is
    configured: the agent would get NO_MODEL."""
    specs = await registered_providers()
    return resolve_default_model(load_config(), os.environ, specs)[0] == NO_MODEL


def first_contact() -> int:
    print(f"shard: {FIRST_CONTACT}", file=sys.stderr)
    return ExitCode.NO_MODEL


def exit_status(end: TurnEndEvent, *, blocked: bool) -> int:
    return for_turn(end.reason, blocked=blocked)
