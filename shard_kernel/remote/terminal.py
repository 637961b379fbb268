"""TerminalSession: one gateway agent attached from a terminal (`shard agents attach`).

It resumes the agent, opens its kernel's channels, attaches on the `shard` comm (interactive, or
observer), prints every live event with the terminal renderer and asks each permission prompt on
stdin — first answer wins, so a prompt another client answers first is shown as decided and the
line typed later is refused by the agent, harmlessly. With a prompt it sends it and returns when
that turn ends; without one it follows the agent until the user interrupts.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import uuid
from typing import Any, TextIO

from pydantic import TypeAdapter, ValidationError

from shard_core.protocol import (
    AttachCommand,
    ClientRole,
    PermissionRequestEvent,
    PermissionResponseCommand,
    TurnEndEvent,
)
from shard_core.protocol.events import Event
from shard_kernel.denials import DenialWatch
from shard_kernel.exit_codes import for_turn
from shard_kernel.gateway.client import KernelSocket, comm_reply, shard_event
from shard_kernel.remote.link import TIMEOUT, GatewayError, GatewayLink
from shard_kernel.terminal.escape import terminal_safe
from shard_kernel.terminal.render import TerminalRenderer

EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
CHOICES = {"y": "allow", "yes": "allow", "a": "allow_always", "always": "allow_always"}


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
        self._comm = ""
        self._asking: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    async def run(self, prompt: str | None) -> int:
        """Attach, then run `prompt` to its turn's end (its exit status as `shard run` gives
        it: ExitCode), or follow until cancelled (exit 0)."""
        info = await self.link.attach(self.agent_id)
        if info.kernel_id is None:
            raise GatewayError(f"agent {info.name} did not start: see the gateway's log")
        history = await self.link.request("GET", f"shard/api/agents/{info.id}/events?limit=1")
        since = int((history or {}).get("last_seq", -1))
        self._sock = sock = await KernelSocket.open(
            self.link.url, info.kernel_id, token=self.link.token, within=TIMEOUT
        )
        try:
            attach = AttachCommand(client_id=self.client_id, since=since, role=self.role)
            self._comm = sock.open_comm(attach.model_dump(mode="json"))
            self._say(f"attached to {info.name} ({info.id}) as {self.role}; {info.status}")
            if prompt is not None:
                sock.execute(prompt)
            return await self._follow(sock, turns=1 if prompt is not None else None)
        finally:
            for task in self._tasks:
                task.cancel()
            with contextlib.suppress(Exception):  # a socket the server already closed
                sock.comm_close(self._comm)
            await sock.aclose()

    async def _follow(self, sock: KernelSocket, turns: int | None) -> int:
        denials = DenialWatch()
        while True:
            message = await sock.recv()
            if message is None:
                raise GatewayError("the connection to the agent closed")
            reply = comm_reply(message, self._comm)
            if reply is not None:
                self._on_reply(reply)
                continue
            data = shard_event(message)
            if data is None:
                continue
            try:
                event = EVENTS.validate_python(data)
            except ValidationError:
                continue
            self.render(event)
            denials(event)
            if isinstance(event, PermissionRequestEvent) and self.role == "interactive":
                self._ask(event)
            if isinstance(event, TurnEndEvent) and turns:
                return for_turn(event.reason, blocked=denials.blocked)

    def _on_reply(self, reply: dict[str, Any]) -> None:
        if reply.get("type") == "snapshot":
            for pending in reply.get("pending_permissions") or []:
                event = PermissionRequestEvent.model_validate(pending)
                self.render(event)
                if self.role == "interactive":
                    self._ask(event)
        elif reply.get("ok") is False:
            self._say(f"the agent refused: {reply.get('message')}")

    def _ask(self, event: PermissionRequestEvent) -> None:
        if event.request_id in self._asking:
            return
        self._asking.add(event.request_id)
        task = asyncio.ensure_future(self._answer(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, event: PermissionRequestEvent) -> None:
        always = f" [a]lways ({event.suggested_rule})" if event.suggested_rule else ""
        self.out.write(terminal_safe(f"? allow {event.tool}? [y]es{always} [n]o: "))
        self.out.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        if not line:  # stdin closed: leave the question to the other clients
            return
        decision = CHOICES.get(line.strip().lower(), "deny")
        if decision == "allow_always" and not event.suggested_rule:
            decision = "allow"
        answer = PermissionResponseCommand(
            request_id=event.request_id,
            decision=decision,  # pyright: ignore[reportArgumentType]
            client_id=self.client_id,
            rule=event.suggested_rule if decision == "allow_always" else None,
            label="terminal",
        )
        if self._sock is not None:
            self._sock.comm_send(self._comm, answer.model_dump(mode="json"))

    def _say(self, text: str) -> None:
        print(self.render.style(text, "dim"), file=self.out, flush=True)
