"""`shard workflow`: run a workflow file (`async def main(wf)`), list runs, show one, cancel one.

shard workflow run fix.py --input target=src --model scripted/s.json
shard workflow run fix.py --max-agents 4 --deadline 600
shard workflow run --resume wf-1a2b3c4d5e6f     replay what finished, run what did not
shard workflow list
shard workflow status wf-1a2b3c4d5e6f
shard workflow cancel wf-1a2b3c4d5e6f
shard workflow run fix.py --gateway --follow    a durable job in the gateway, followed here
shard workflow list --gateway --url http://127.0.0.1:8888/
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from shard_core.contracts.ui import QuestionAnswer, QuestionPrompt
from shard_core.engine.state import shard_home
from shard_core.types import AssistantMessage, MessageEntry
from shard_core.types.errors import ConfigError
from shard_kernel.exit_codes import ExitCode
from shard_kernel.workflows.engine import Asker, no_one


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "workflow",
        help="run a workflow file of agents, list, show or cancel runs",
        description="Workflows: `async def main(wf)` files that script agents; each finished "
        "step is recorded in SHARD_HOME/jobs/workflows/, so --resume replays it.",
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    run = verbs.add_parser("run", help="run (or --resume) a workflow")
    run.add_argument("file", nargs="?", help="the workflow file")
    run.add_argument("--input", action="append", default=[], metavar="K=V")
    run.add_argument("--resume", metavar="RUN", help="resume this run")
    run.add_argument("--model", help="the agents' model (else each definition's or the default)")
    run.add_argument("--allow", action="append", default=[], help="an allow rule for the agents")
    run.add_argument("--max-agents", type=int, metavar="N", help="the most agents the run makes")
    run.add_argument("--deadline", type=float, metavar="S", help="seconds the run may take")
    run.add_argument("--follow", action="store_true", help="with --gateway: follow it to its end")
    run.set_defaults(handler=_run)
    listing = verbs.add_parser("list", help="the runs, oldest first")
    listing.set_defaults(handler=_list)
    parsers = [run, listing]
    for verb, handler in (("status", _status), ("cancel", _cancel)):
        one = verbs.add_parser(verb, help=f"{verb} one run")
        one.add_argument("run")
        one.set_defaults(handler=handler)
        parsers.append(one)
    for verb in parsers:
        where = "in the gateway (a durable job there), not in this process"
        verb.add_argument("--gateway", action="store_true", help=where)
        verb.add_argument("--url", help="the gateway (default: $SHARD_GATEWAY_URL, else found)")
        verb.add_argument("--token", help="its token (default: $SHARD_GATEWAY_TOKEN)")


def _remote(args: argparse.Namespace) -> bool:
    return bool(args.gateway or args.url)


def _in_gateway(args: argparse.Namespace, inputs: dict[str, str] | None = None) -> int:
    from shard_kernel.commands import workflow_gateway
    from shard_kernel.remote.link import GatewayError

    work = workflow_gateway.show(args) if inputs is None else workflow_gateway.run(args, inputs)
    try:
        return asyncio.run(work)
    except GatewayError as exc:
        raise ConfigError(str(exc)) from None


def _inputs(pairs: list[str]) -> dict[str, str]:
    inputs: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--input {pair!r}: give KEY=VALUE")
        inputs[key.strip()] = value
    return inputs


def _run(args: argparse.Namespace) -> int:
    from shard_kernel.workflows import run_workflow

    if (args.file is None) == (args.resume is None):
        raise ConfigError("give a workflow FILE, or --resume RUN (not both)")
    if _remote(args) and args.resume:
        raise ConfigError("a gateway resumes its runs itself (after a restart too): no --resume")
    if args.follow and not _remote(args):
        raise ConfigError("--follow follows a run in the gateway: add --gateway")
    home = shard_home()

    async def agent(task: str, definition: str | None, cwd: str | None, model: str | None) -> str:
        return await _agent_report(task, definition, cwd, model or args.model, args.allow)

    for name, value in (("--max-agents", args.max_agents), ("--deadline", args.deadline)):
        if value is not None and value <= 0:
            raise ConfigError(f"{name} must be more than 0")
    if _remote(args):
        return _in_gateway(args, _inputs(args.input))
    file = Path(args.file) if args.file else Path()
    bounds = {"max_agents": args.max_agents, "deadline": args.deadline}
    asker = _terminal_asker() if sys.stdin.isatty() else no_one
    run = run_workflow(home, file, _inputs(args.input), agent, args.resume, **bounds, asker=asker)
    record, wf = asyncio.run(run)
    counts = f" ({wf.ran} ran, {wf.replayed} replayed)" if wf is not None else ""
    print(f"workflow {record.id}: {record.state}{counts}")
    if record.error:
        print(f"  {record.error}")
    if record.result:
        print(record.result)
    return ExitCode.OK if record.state == "completed" else ExitCode.FAILED


async def _agent_report(
    task: str, definition: str | None, cwd: str | None, model: str | None, allow: list[str]
) -> str:
    """One in-process agent's turn; its report is its last reply's text."""
    from shard_core.sdk import create_agent

    agent = await create_agent(
        cwd=cwd or ".", model=model, agent_definition=definition, allow=allow
    )
    try:
        end = await agent.run(task)
        replies = [e.details.message for e in agent.session.store.branch()
                   if isinstance(e, MessageEntry)
                   and isinstance(e.details.message, AssistantMessage)]  # fmt: skip
        text = replies[-1].text if replies else ""
        return text if end.reason == "completed" else f"[{end.reason}] {text}".strip()
    finally:
        await agent.close()


def _terminal_asker() -> Asker:
    """`wf.ask` in a local run: the question on this terminal (ask_user's terminal prompt)."""
    from shard_kernel.terminal.bridge import TerminalBridge

    bridge = TerminalBridge()

    async def ask(_n: int, prompt: QuestionPrompt) -> QuestionAnswer | None:
        return await bridge.question(prompt)

    return ask


def _list(args: argparse.Namespace) -> int:
    from shard_kernel.workflows import Journal

    if _remote(args):
        return _in_gateway(args)
    for record in Journal.all(shard_home()):
        print(f"{record.id}  {record.state:<9}  {record.file}")
    return ExitCode.OK


def _status(args: argparse.Namespace) -> int:
    from shard_kernel.workflows import Journal

    if _remote(args):
        return _in_gateway(args)
    journal = Journal(shard_home(), args.run)
    record = journal.record()
    print(f"{record.id}: {record.state} ({record.file})")
    if record.error:
        print(f"  {record.error}")
    for step in journal.steps().values():
        said = step.result.splitlines()[0] if step.result else ""
        print(f"  step {step.n} {step.kind}: {step.asked[:70]!r} -> {said[:70]!r}")
    return ExitCode.OK


def _cancel(args: argparse.Namespace) -> int:
    from shard_kernel.workflows import Journal

    if _remote(args):
        return _in_gateway(args)
    journal = Journal(shard_home(), args.run)
    record = journal.record()
    if record.where == "gateway":
        raise ConfigError(f"run {record.id} runs in a gateway: add --gateway (or --url URL)")
    if record.state != "running":
        raise ConfigError(f"run {record.id} is {record.state}: only a running run is cancelled")
    journal.finish("cancelled")
    print(f"workflow {record.id}: cancelled (its running step ends first)")
    return ExitCode.OK
