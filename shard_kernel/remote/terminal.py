"""TerminalSession: one gateway agent attached from a terminal (`shard agents attach`).

It resumes the agent, opens its kernel's channels, attaches on the `shard` comm (interactive, or
observer), prints every live event with the terminal renderer and asks each permission prompt on
stdin — first answer wins, so a prompt another client answers first is shown as decided and the
line typed later is refused by the agent, harmlessly. With a prompt it sends it and returns when
the cell is answered (a turn's end, or a `/command`'s output, which it prints as text); without
one it follows the agent until the user interrupts. The protocol side is an AgentLink (events
in seq order, gaps synced, heartbeats so it counts as someone who can answer); it leaves by
closing its comm and waiting until the kernel has handled that: the agent's client count is
true once the command returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import uuid
from typing import Any, TextIO

from pydantic import TypeAdapter, ValidationError

from shard_core.contracts.ui import QuestionPrompt, question_problem
from shard_core.protocol import (
    ClientRole,
    CommandReply,
    PermissionRequestEvent,
    PermissionResponseCommand,
    SnapshotReply,
    TurnEndEvent,
    TurnStartEvent,
    UiRequestEvent,
    UiResponseCommand,
)
from shard_core.protocol.events import Event
from shard_core.protocol.link import AgentLink, Attached, Output, Replied
from shard_core.protocol.mime import PERMISSION_MIME, RENDER_MIME
from shard_core.types.base import DEFERRED
from shard_kernel.agent_client import SocketTransport
from shard_kernel.denials import DenialWatch
from shard_kernel.exit_codes import ExitCode, for_turn
from shard_kernel.gateway.client import KernelSocket, msg_type, parent_id
from shard_kernel.remote.link import TIMEOUT, GatewayError, GatewayLink
from shard_kernel.terminal.bridge import CHOICES, WORKSPACE_CHOICES, picked
from shard_kernel.terminal.escape import terminal_safe
from shard_kernel.terminal.render import TerminalRenderer

EVENTS: TypeAdapter[Event] = TypeAdapter(Event, config=DEFERRED)
SHOWN_OUTPUTS = ("display_data", "execute_result", "stream", "error")
TURN_END_WAIT_S = 20.0
"""how long an answered cell waits for its turn's last events (past a sync's 10 s give-up)"""


class TerminalSession:
    def __init__(
        self,
        link: GatewayLink,
        agent_id: str,
        *,
        role: ClientRole = "interactive",
        out: TextIO | None = None,
        stdin: TextIO | None = None,
    ) -> None:
        self.link = link
        self.agent_id = agent_id
        self.role: ClientRole = role
        self.out = out or sys.stdout
        self.stdin = stdin or sys.stdin
        self.render = TerminalRenderer(self.out)
        self.client_id = f"terminal-{uuid.uuid4().hex[:10]}"
        self._sock: KernelSocket | None = None
        self._transport: SocketTransport | None = None
        self._asking: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cell: str | None = None
        """the msg_id of the prompt's execute_request"""
        self._turn: TurnEndEvent | bool = False
        """False: no turn of ours seen; True: one started; its end event once it ended"""
        self._replied: str | None = None
        """the status of the prompt's execute_reply, once it came"""
        self._idle = False
        """the prompt's cell went idle on IOPub (every output of it came before)"""
        self._turn_ran = False
        """the prompt's execute_reply says it ran a turn (metadata `shard.turn`)"""
        self._answered_at: float | None = None
        """when (loop time) the cell was answered while its turn's end had not come"""
        self._denials = DenialWatch()

    async def run(self, prompt: str | None) -> int:
        """Attach, then run `prompt` until its cell is answered (a turn's exit status as `shard
        run` gives it: ExitCode), or follow until cancelled (exit 0)."""
        info = await self.link.attach(self.agent_id)
        if info.kernel_id is None:
            raise GatewayError(f"agent {info.name} did not start: see the gateway's log")
        history = await self.link.request("GET", f"shard/api/agents/{info.id}/events?limit=1")
        since = int((history or {}).get("last_seq", -1))
        self._sock = sock = await KernelSocket.open(
            self.link.url, info.kernel_id, token=self.link.token, within=TIMEOUT
        )
        link = AgentLink(self.client_id, role=self.role, since=since)
        self._transport = transport = SocketTransport(sock, link, comm_prefix="terminal")
        try:
            link.attach()
            transport.flush()
            self._spawn(self._timers(transport))
            self._say(f"attached to {info.name} ({info.id}) as {self.role}; {info.status}")
            if prompt is not None:
                self._cell = sock.execute(prompt)
            return await self._follow(sock, transport)
        finally:
            for task in self._tasks:
                task.cancel()
            with contextlib.suppress(Exception):  # a socket the server already closed
                comm = transport.comm_id
                link.lost()
                await sock.detach(comm)
            await sock.aclose()

    async def _follow(self, sock: KernelSocket, transport: SocketTransport) -> int:
        loop = asyncio.get_running_loop()
        while True:
            wait = None
            if self._answered_at is not None:  # the cell is answered; its turn's end is due
                wait = max(0.0, self._answered_at + TURN_END_WAIT_S - loop.time())
            try:
                message = await asyncio.wait_for(sock.recv(), wait)
            except TimeoutError:  # the turn's end never came: the cell's status is the answer
                self._say("the turn's end did not arrive; its cell was answered")
                return self._exit_code()
            if message is None:
                raise GatewayError("the connection to the agent closed")
            outputs = transport.feed(message)  # a turn's events carry its cell as parent too
            if outputs is None:
                if self._cell is not None and parent_id(message) == self._cell:
                    self._on_cell(message)
                    if self._replied is not None and self._awaits_turn:  # its end may be lost
                        transport.link.catch_up()
                        transport.flush()
            else:
                self._on_outputs(outputs)
            done = self._done()
            if done is not None:
                return done

    def _on_outputs(self, outputs: list[Output]) -> None:
        for output in outputs:
            if isinstance(output, Attached):
                self._on_snapshot(output.snapshot)
            elif isinstance(output, Replied):
                reply = output.reply
                if isinstance(reply, CommandReply) and not reply.ok:
                    self._say(f"the agent refused: {reply.message}")
            else:
                for data in output.events:
                    self._on_event(data)

    def _on_event(self, data: dict[str, Any]) -> None:
        try:
            event = EVENTS.validate_python(data)
        except ValidationError:
            return
        self.render(event)
        self._denials(event)
        if isinstance(event, PermissionRequestEvent) and self.role == "interactive":
            self._ask(event)
        if isinstance(event, UiRequestEvent) and self.role == "interactive":
            self._question(event)
        if self._cell is None:
            return
        if isinstance(event, TurnStartEvent) and self._turn is False:
            self._turn = True
        elif isinstance(event, TurnEndEvent) and self._turn is True:
            self._turn = event

    def _on_cell(self, message: dict[str, Any]) -> None:
        """An output or the reply of the prompt's cell: a `/command` prints its text here (a
        turn's outputs are its events, already shown)."""
        kind = msg_type(message)
        content = message.get("content") or {}
        if kind == "execute_reply":
            self._replied = str(content.get("status") or "error")
            shard = (message.get("metadata") or {}).get("shard")
            self._turn_ran = isinstance(shard, dict) and shard.get("turn") is True
        elif kind == "status" and content.get("execution_state") == "idle":
            self._idle = True
        elif kind in SHOWN_OUTPUTS:
            text = _cell_text(kind, content)
            if text:
                print(terminal_safe(text.rstrip("\n")), file=self.out, flush=True)

    @property
    def _awaits_turn(self) -> bool:
        """A turn of this prompt started or its reply says one ran, and its end has not come."""
        return self._turn is True or (self._turn_ran and self._turn is False)

    def _done(self) -> int | None:
        """The run's exit code once the prompt is done: its turn ended and its cell was answered,
        or (a `/command` that ran no turn) its reply came and its cell went idle, after all its
        outputs (IOPub may be behind the shell's reply). A turn the reply says ran, or one whose
        start was seen, is waited for (its last events may be behind the reply, or held by a
        sync), at most TURN_END_WAIT_S after the cell was answered."""
        if self._replied is None:
            return None
        if isinstance(self._turn, TurnEndEvent):
            return self._exit_code()
        if not self._idle:
            return None
        if self._awaits_turn:
            if self._answered_at is None:
                self._answered_at = asyncio.get_running_loop().time()
            return None
        return self._exit_code()

    def _exit_code(self) -> int:
        if isinstance(self._turn, TurnEndEvent):
            return for_turn(self._turn.reason, blocked=self._denials.blocked)
        return ExitCode.OK if self._replied == "ok" else ExitCode.FAILED  # a `/command`

    async def _timers(self, transport: SocketTransport) -> None:
        """The link's heartbeats (heard from often enough to count as attached and as someone
        who can answer) and its give-up on a sync that never came."""
        link = transport.link
        while True:
            due = link.next_timer()
            await asyncio.sleep(1.0 if due is None else max(0.0, min(1.0, due - link.clock())))
            if due is not None and link.clock() >= due:
                self._on_outputs(link.handle_timer())
                transport.flush()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_snapshot(self, snapshot: SnapshotReply) -> None:
        for event in snapshot.pending_permissions:
            self.render(event)
            if self.role == "interactive":
                self._ask(event)
        for question in snapshot.pending_ui:  # a question open when this client attached
            self.render(question)
            if self.role == "interactive":
                self._question(question)

    def _question(self, event: UiRequestEvent) -> None:
        if event.ui != "question" or event.request_id in self._asking:
            return
        self._asking.add(event.request_id)
        self._spawn(self._answer_question(event))

    async def _answer_question(self, event: UiRequestEvent) -> None:
        """An ask_user question on stdin: numbers pick choices; asked again until the answer
        fits; another client may answer first (the agent then refuses this one, harmlessly)."""
        prompt = QuestionPrompt(event.title, tuple(event.options), event.allow_other, event.multi)
        kind = "numbers, comma-separated" if event.multi else "a number"
        other = ", or your own words" if event.allow_other else ""
        ask = f"  answer ({kind}{other}): "
        while True:
            self.out.write(terminal_safe(ask))
            self.out.flush()
            line = await asyncio.to_thread(self.stdin.readline)
            if not line:  # stdin closed: leave the question to the other clients
                return
            values = picked(line.strip(), prompt.choices, prompt.multi)
            problem = question_problem(prompt, values)
            if problem is None:
                break
            ask = f"  {problem}; answer again: "
        answer = UiResponseCommand(
            request_id=event.request_id, value=values, client_id=self.client_id, label="terminal"
        )
        if self._transport is not None:
            self._transport.link.command(answer)
            self._transport.flush()

    def _ask(self, event: PermissionRequestEvent) -> None:
        if event.request_id in self._asking:
            return
        self._asking.add(event.request_id)
        self._spawn(self._answer(event))

    async def _answer(self, event: PermissionRequestEvent) -> None:
        always = (
            f" [a]lways for this agent / [w]orkspace ({event.suggested_rule})"
            if event.suggested_rule
            else ""
        )
        self.out.write(terminal_safe(f"? allow {event.tool}? [y]es{always} [n]o: "))
        self.out.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        if not line:  # stdin closed: leave the question to the other clients
            return
        decision = CHOICES.get(line.strip().lower(), "deny")
        scope = "workspace" if line.strip().lower() in WORKSPACE_CHOICES else "agent"
        if decision == "allow_always" and not event.suggested_rule:
            decision = "allow"
        answer = PermissionResponseCommand(
            request_id=event.request_id,
            decision=decision,  # pyright: ignore[reportArgumentType]
            client_id=self.client_id,
            rule=event.suggested_rule if decision == "allow_always" else None,
            scope=scope,
            label="terminal",
        )
        if self._transport is not None:
            self._transport.link.command(answer)
            self._transport.flush()

    def _say(self, text: str) -> None:
        print(self.render.style(text, "dim"), file=self.out, flush=True)


def _cell_text(kind: str, content: dict[str, Any]) -> str:
    """What a cell's output says as text; nothing for Shard's own rendered transcript (the
    events show it) or an output with no text form."""
    if kind == "stream":
        return str(content.get("text") or "")
    if kind == "error":
        return f"{content.get('ename', 'Error')}: {content.get('evalue', '')}"
    data = content.get("data") or {}
    if RENDER_MIME in data or PERMISSION_MIME in data:
        return ""
    return str(data.get("text/plain") or "")
