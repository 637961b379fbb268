"""CommCommands: the per-agent protocol over comms — attach, sync, answers, steer, abort, ops.

Every command is validated with the protocol's pydantic models; a bad one is answered with a
`reply{ok: false}` naming what is wrong, never a traceback. Replies go back on the sender's comm.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from shard_core.contracts.ui import QuestionPrompt
from shard_core.protocol.commands import (
    AbortCommand,
    AttachCommand,
    Command,
    CommandReply,
    PromptCommand,
    RelayAskCommand,
    SessionOpCommand,
    SlashCommand,
    SnapshotReply,
    SyncCommand,
    UiResponseCommand,
)
from shard_core.types import ImageBlock
from shard_core.types.base import DEFERRED
from shard_core.types.errors import ShardError
from shard_kernel.agent_commands import run_common, run_slash_command

if TYPE_CHECKING:
    from shard_core.sdk import Agent
    from shard_kernel.agent_host import AgentHost
    from shard_kernel.clients import Client

COMMAND: TypeAdapter[Command] = TypeAdapter(Command, config=DEFERRED)


def describe(exc: ValidationError) -> str:
    parts: list[str] = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "message"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


class CommCommands:
    def __init__(self, kernel: AgentHost) -> None:
        self.kernel = kernel
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ attach

    def open(self, comm: Any, data: dict[str, Any], session: str | None = None) -> None:
        """A comm on target `shard` opened: `data` is an attach command, `session` the Jupyter
        session of the client that opened it."""
        try:
            attach = AttachCommand.model_validate({**data, "type": "attach"})
        except ValidationError as exc:
            self.reply(comm, CommandReply(command="attach", ok=False, message=describe(exc)))
            return
        self.kernel.clients.attach(
            comm, attach.client_id, attach.role, label=attach.label, session=session
        )
        self.kernel.clients_changed()
        comm.on_msg(lambda msg: self.handle(comm, msg["content"].get("data")))
        comm.on_close(lambda _msg: self._detach(comm.comm_id))
        self._spawn(self._snapshot(comm, attach.since, None, 500, attach.id))

    def _detach(self, comm_id: str) -> None:
        self.kernel.clients.detach(comm_id)
        self.kernel.clients_changed()

    async def _snapshot(
        self, comm: Any, since: int, until: int | None, limit: int, command_id: str | None
    ) -> None:
        try:
            agent = await self.kernel.ready_agent()
        except ShardError as exc:
            self.reply(
                comm,
                CommandReply(command_id=command_id, command="attach", ok=False, message=str(exc)),
            )
            return
        log = self.kernel.event_log
        events, more = log.read(since, until, limit) if log is not None else ([], False)
        session = agent.session
        snapshot = SnapshotReply(
            command_id=command_id,
            agent_id=agent.agent_id,
            status=session.status,
            mode=session.mode,
            model=session.provider.model,
            last_seq=session.events.last_seq,
            pending_permissions=list(self.kernel.pending.values()),
            pending_ui=list(self.kernel.pending_ui.values()),
            events=events,
            has_more=more,
        )
        self.reply(comm, snapshot)

    # ------------------------------------------------------------ commands

    def handle(self, comm: Any, data: Any) -> None:
        self.kernel.clients.touch(comm.comm_id)
        try:
            command = COMMAND.validate_python(data)
        except ValidationError as exc:
            kind = data.get("type", "?") if isinstance(data, dict) else "?"
            self.reply(comm, CommandReply(command=str(kind), ok=False, message=describe(exc)))
            return
        self._spawn(self._dispatch(comm, command))

    async def _dispatch(self, comm: Any, command: Command) -> None:
        try:
            reply = await self._run(comm, command)
        except ShardError as exc:
            reply = CommandReply(command=command.type, ok=False, message=str(exc))
        if reply is not None:
            reply.command_id = command.id
            self.reply(comm, reply)

    async def _run(self, comm: Any, command: Command) -> CommandReply | SnapshotReply | None:
        if isinstance(command, AttachCommand):
            client = self.kernel.clients.get(comm.comm_id)
            if client is not None:
                client.role, client.client_id = command.role, command.client_id
                client.label = command.label
                self.kernel.clients_changed()
            await self._snapshot(comm, command.since, None, 500, command.id)
            return None
        if isinstance(command, SyncCommand):
            await self._snapshot(comm, command.since, command.until, command.limit, command.id)
            return None
        agent = await self.kernel.ready_agent()
        client = self.kernel.clients.get(comm.comm_id)
        role = client.role if client is not None else "observer"
        common = run_common(agent, command, role, client.label if client is not None else None)
        if common is not None:
            return common
        if isinstance(command, AbortCommand):
            stopped = self.kernel.interrupt_turn()
            return CommandReply(
                command="abort", ok=stopped, message="" if stopped else "no turn is running"
            )
        if isinstance(command, PromptCommand):
            return self._prompt(command)
        if isinstance(command, SlashCommand):
            return await self._slash(agent, command, client)
        if isinstance(command, RelayAskCommand):
            return await self._relay_ask(command)
        if isinstance(command, SessionOpCommand):
            return await self._session_op(command)
        if isinstance(command, UiResponseCommand):
            client = self.kernel.clients.get(comm.comm_id)
            if client is None or client.role != "interactive" or self.kernel.ui is None:
                return CommandReply(
                    command="ui_response", ok=False, message="observers cannot answer"
                )
            ok, message = self.kernel.ui.respond(
                command.request_id, command.value, command.client_id, command.label or client.label
            )
            return CommandReply(command="ui_response", ok=ok, message=message)
        return None

    async def _slash(
        self, agent: Agent, command: SlashCommand, client: Client | None
    ) -> CommandReply:
        """A `/` command from a composer (the chat tab, a widget, ACP): its output is a
        `command_output` event in every client's transcript. Observers only watch."""
        if client is None or client.role != "interactive":
            return CommandReply(command="slash", ok=False, message="observers cannot run commands")
        return await run_slash_command(agent, command, client.client_id, client.label)

    def _prompt(self, command: PromptCommand) -> CommandReply:
        agent = self.kernel.agent
        assert agent is not None
        if agent.session.running:
            return CommandReply(command="prompt", ok=False, message="a turn is already running")
        self._spawn(self._background_turn(command.text, command.images))
        return CommandReply(command="prompt", ok=True, message="started")

    async def _background_turn(self, text: str, images: Sequence[ImageBlock] = ()) -> None:
        agent = await self.kernel.ready_agent()
        await agent.run(text, images)

    async def _relay_ask(self, command: RelayAskCommand) -> CommandReply:
        """A question for this agent's people from the gateway (a subagent's ask): asked like
        an extension's, so no interactive client (or no answer in time) gives null."""
        ui = self.kernel.ui
        if command.question and ui is not None:
            prompt = QuestionPrompt(command.title, tuple(command.options), command.allow_other,
                                    command.multi, command.message)  # fmt: skip
            answer = await ui.question(prompt)
            data = {"value": None if answer is None else list(answer.values),
                    "decided_by": None if answer is None else answer.decided_by}  # fmt: skip
            return CommandReply(command="relay_ask", ok=answer is not None, data=data)
        value = await ui.select(command.title, command.options, command.message) if ui else None
        return CommandReply(command="relay_ask", ok=value is not None, data={"value": value})

    async def _session_op(self, command: SessionOpCommand) -> CommandReply:
        agent = await self.kernel.ready_agent()
        if command.op == "compact":
            if agent.session.running:
                return CommandReply(
                    command="session_op", ok=False, message="busy: compaction runs between turns"
                )
            event = await agent.session.compact("manual")
            message = "nothing worth folding" if event is None else f"compaction {event.index}"
            return CommandReply(command="session_op", ok=True, message=message)
        if command.op == "fork":
            session_id = agent.fork(command.entry_id)
            return CommandReply(
                command="session_op", ok=True, message=session_id, data={"session_id": session_id}
            )
        return CommandReply(command="session_op", ok=True, data={"sessions": agent.list_sessions()})

    # ------------------------------------------------------------ plumbing

    def reply(self, comm: Any, reply: CommandReply | SnapshotReply) -> None:
        self.kernel.flush_events()  # a reply follows the events that came before it
        comm.send(reply.model_dump(mode="json"))

    def _spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
