"""`shard agent --stdio`: one agent speaking the protocol as JSONL over stdin/stdout.

Commands in (one JSON record per line, LF only), events and replies out. A malformed line gets a
`reply{ok: false}` naming the line; the stream goes on.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from pydantic import TypeAdapter, ValidationError

from shard_core.protocol.commands import (
    AbortCommand,
    AttachCommand,
    Command,
    CommandReply,
    PromptCommand,
    SessionOpCommand,
    SlashCommand,
    SnapshotReply,
    SyncCommand,
)
from shard_core.protocol.framing import JsonlDecoder, encode_record
from shard_core.sdk import Agent, create_agent
from shard_core.types.base import DEFERRED
from shard_kernel.agent_commands import run_common, run_slash_command
from shard_kernel.commands.common import add_agent_options
from shard_kernel.exit_codes import ExitCode
from shard_kernel.notebook_tools import NotebookSetup, notebook_extension

COMMAND: TypeAdapter[Command] = TypeAdapter(Command, config=DEFERRED)
EXAMPLES = """examples:
  echo '{"type":"prompt","text":"list the files"}' | shard agent --stdio --model scripted/demo
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "agent",
        help="run one agent over a stdio JSONL transport",
        description="Speak the per-agent protocol (docs/PROTOCOL.md) as JSONL on stdin/stdout.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--stdio", action="store_true", required=True, help="use stdin/stdout")
    add_agent_options(parser)
    parser.add_argument("--agent-id", help="resume this agent's session")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return asyncio.run(StdioAgent(args).serve())


class StdioAgent:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.agent: Agent | None = None
        self.turns: set[asyncio.Task[Any]] = set()
        self.stdin_open = True

    def write(self, record: Any) -> None:
        sys.stdout.buffer.write(encode_record(record))
        sys.stdout.buffer.flush()

    async def serve(self) -> int:
        self.agent = await create_agent(
            cwd=self.args.cwd,
            model=self.args.model,
            mode=self.args.mode,
            agent_definition=self.args.agent_definition,
            allow=self.args.allow,
            deny=self.args.deny,
            trust_project=self.args.trust_project,
            agent_id=self.args.agent_id,
            resume=True if self.args.agent_id else None,
            has_responder=lambda: self.stdin_open,  # the other end answers while it is there
            extensions=[notebook_extension(NotebookSetup.from_env(os.environ))],
        )
        self.agent.events.subscribe(self.write)
        self.agent.session.emit_status()
        try:
            await self._read_loop()
            self.stdin_open = False  # from now on asks go to the headless policy
            if self.turns:
                await asyncio.gather(*self.turns, return_exceptions=True)
        finally:
            await self.agent.close()
        return ExitCode.OK

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        decoder = JsonlDecoder()
        while chunk := await reader.read(65536):
            for record in decoder.feed(chunk):
                self._handle(record)
        for record in decoder.close():
            self._handle(record)

    def _handle(self, record: Any) -> None:
        if record.error is not None:
            self.write(CommandReply(command="?", ok=False, message=str(record.error)))
            return
        try:
            command = COMMAND.validate_python(record.value)
        except ValidationError as exc:
            where = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            self.write(CommandReply(command="?", ok=False, message=f"line {record.line}: {where}"))
            return
        reply = self._dispatch(command)
        if reply is not None:
            reply.command_id = command.id
            self.write(reply)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.turns.add(task)
        task.add_done_callback(self.turns.discard)

    async def _slash(self, agent: Agent, command: SlashCommand) -> None:
        reply = await run_slash_command(agent, command, None, None)
        reply.command_id = command.id
        self.write(reply)

    def _dispatch(self, command: Command) -> CommandReply | SnapshotReply | None:
        agent = self.agent
        assert agent is not None
        session = agent.session
        if isinstance(command, PromptCommand):
            if session.running:
                return CommandReply(command="prompt", ok=False, message="a turn is running")
            self._spawn(agent.run(command.text, command.images))
            return None
        if isinstance(command, SlashCommand):  # its command_output event goes out too
            self._spawn(self._slash(agent, command))
            return None
        common = run_common(agent, command, "interactive")
        if common is not None:
            return common
        if isinstance(command, AbortCommand):
            return CommandReply(command="abort", ok=agent.abort())
        if isinstance(command, AttachCommand | SyncCommand):
            return SnapshotReply(
                agent_id=agent.agent_id,
                status=session.status,
                mode=session.mode,
                model=session.provider.model,
                last_seq=session.events.last_seq,
            )
        if isinstance(command, SessionOpCommand) and command.op == "fork":
            return CommandReply(command="session_op", ok=True, message=agent.fork(command.entry_id))
        return CommandReply(command=command.type, ok=False, message="not supported over stdio")
