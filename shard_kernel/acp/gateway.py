"""GatewaySession: an ACP session whose agent is a gateway agent (`shard acp --gateway URL`).

The agent runs as a kernel under Shard's gateway, so the Lab panel, `%shard attach` and any
other tab see the same live agent and can answer its prompts too. This side is one more client
of the agent protocol: an AgentLink over the kernel's WebSocket (`shard_kernel.agent_client`,
the one protocol client), attached as an interactive client. Its events become the same ACP
updates a local session sends (updates.py); a prompt is a `prompt` command, a prompt during a
running turn a `steer`, `session/cancel` an `abort`, a mode change `set_mode`, a slash command
`slash`. Each `permission_request` of the agent is put to the ACP host with the same four
options ("always deny" is the agent's own `/deny RULE`, saved with it); the host's answer is a
`permission_response` like any tab's, and the first answer wins (a prompt another tab answered
first is resolved there; the host's later answer is ignored).
The ACP session id is the gateway agent's id, so `session/load` attaches to it again and
replays its history from the agent's events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    AvailableCommand,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    PromptResponse,
    SessionMode,
    SessionModeState,
    StopReason,
)
from pydantic import TypeAdapter, ValidationError

from shard_core.protocol import (
    AbortCommand,
    AgentInfo,
    CommandReply,
    PermissionResponseCommand,
    PromptCommand,
    SetModeCommand,
    SnapshotReply,
    SteerCommand,
)
from shard_core.protocol.commands import ListCommandsCommand, SlashCommand
from shard_core.protocol.events import (
    CommandOutputEvent,
    Event,
    MessageCompleteEvent,
    MessageDeltaEvent,
    PermissionRequestEvent,
    StatusEvent,
    SteerReceiptEvent,
    ToolCallEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from shard_core.protocol.link import AgentLink
from shard_core.types import ImageBlock, TextBlock, ThinkingBlock
from shard_core.types.base import DEFERRED
from shard_kernel.acp.permissions import (
    ALLOW_ALWAYS,
    ALLOW_ONCE,
    REJECT_ALWAYS,
    REJECT_ONCE,
    permission_call,
    permission_options,
)
from shard_kernel.acp.session import ContentBlock, hook_stop, prompt_parts, prompt_response
from shard_kernel.acp.updates import (
    UpdateMapper,
    command_entry,
    text_chunk,
    user_chunk,
)
from shard_kernel.agent_client import AgentConnection, LinkError, SocketTransport
from shard_kernel.gateway.client import KernelSocket
from shard_kernel.remote.link import GatewayError, GatewayLink

_log = logging.getLogger("shard.acp")
_events: TypeAdapter[Event] = TypeAdapter(Event, config=DEFERRED)
COMMAND_TIMEOUT = 15.0
MODES = {
    "build": "every tool, asking as the rules say",
    "plan": "read-only tools; ends with a plan",
}
"""the bundled modes a gateway agent offers (its kernel has them; the snapshot names the mode)"""


class GatewaySession:
    """One ACP session on one gateway agent; `open()` attaches, `close()` detaches (the agent
    keeps running under the gateway)."""

    def __init__(
        self, info: AgentInfo, link: GatewayLink, client: Client, host: str, *, history: bool
    ) -> None:
        self.info = info
        self.link = link
        self.client = client
        self.host = host
        self.session_id = info.id
        self.cwd = Path(info.cwd)
        self.mode = info.mode
        self.mapper = UpdateMapper(self.cwd, lambda _name: None)
        self.agent_link = AgentLink(f"acp-{uuid.uuid4().hex[:10]}", label=host, replay=history)
        self._replaying = history
        self._sock: KernelSocket | None = None
        self._conn: AgentConnection | None = None
        self._inflight: list[asyncio.Task[None]] = []
        self._asks: dict[str, asyncio.Task[None]] = {}
        self._turn_ends: list[tuple[asyncio.Future[TurnEndEvent], int]] = []
        self._receipts: dict[str, asyncio.Future[SteerReceiptEvent]] = {}
        self._outputs: list[asyncio.Future[CommandOutputEvent]] = []
        self._running = info.status not in ("idle", "error")
        self._streamed: set[str] = set()
        """turns whose text came as deltas (their message_complete adds nothing)"""
        self._command_names: set[str] = set()
        self._stops: dict[str, str | None] = {}
        """each turn's last reply's stop reason (max_tokens, refusal), by turn id"""

    # -- connection ----------------------------------------------------------------------------

    async def open(self) -> None:
        if self.info.kernel_id is None:
            raise GatewayError(f"agent {self.info.name} did not start: see the gateway's log")
        sock = await KernelSocket.open(
            self.link.url, self.info.kernel_id, token=self.link.token, within=COMMAND_TIMEOUT
        )
        self._sock = sock
        conn = AgentConnection(
            SocketTransport(sock, self.agent_link, comm_prefix="acp"),
            sock.recv,
            on_events=self._on_events,
            on_attached=self._on_attached,
        )
        self._conn = conn
        conn.start()
        try:
            await conn.attach("interactive", within=COMMAND_TIMEOUT)
        except LinkError as exc:
            await self.close()
            raise GatewayError(f"agent {self.info.name} refused the attach: {exc}") from None
        finally:
            self._replaying = False

    async def close(self) -> None:
        for task in self._asks.values():
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.flush(), 5)
        conn, self._conn = self._conn, None
        sock, self._sock = self._sock, None
        if conn is not None:
            await conn.aclose()
        if sock is not None:
            await sock.aclose()

    async def _request(self, command: Any) -> CommandReply | SnapshotReply:
        conn = self._conn
        if conn is None or conn.closed:
            raise RequestError.internal_error(
                {"message": f"the connection to gateway agent {self.info.name} is closed"}
            )
        try:
            return await conn.request(command, within=COMMAND_TIMEOUT)
        except LinkError as exc:
            raise RequestError.internal_error(
                {"message": f"gateway agent {self.info.name}: {exc}"}
            ) from None

    # -- events --------------------------------------------------------------------------------

    def _on_attached(self, snapshot: SnapshotReply) -> None:
        self.mode = snapshot.mode
        self._running = snapshot.status not in ("idle", "error")
        for request in snapshot.pending_permissions:
            self._ask(request)

    def _on_events(self, raw: list[dict[str, Any]]) -> None:
        for item in raw:
            try:
                event = _events.validate_python(item)
            except ValidationError:
                _log.warning("acp: an event of type %r did not validate", item.get("type"))
                continue
            self._on_event(event)

    def _on_event(self, event: Event) -> None:
        if self._replaying:
            self._replay(event)
            return
        if isinstance(event, MessageDeltaEvent) and event.delta and event.channel != "tool_call":
            self._streamed.add(event.turn_id)
        for update in self.mapper(event):
            self.send(update)
        if isinstance(event, StatusEvent):
            self._status(event)
        elif isinstance(event, MessageCompleteEvent):
            self._stops[event.turn_id] = event.message.stop_reason
            if event.turn_id not in self._streamed:
                self._message(event)  # no delta reached this client: the whole text, once
        elif isinstance(event, PermissionRequestEvent):
            self._ask(event)
        elif isinstance(event, SteerReceiptEvent | CommandOutputEvent):
            self._answered(event)
        elif isinstance(event, TurnEndEvent):
            self._turn_end(event)

    def _answered(self, event: SteerReceiptEvent | CommandOutputEvent) -> None:
        """A steer's receipt, or the output of a slash command this client ran."""
        if isinstance(event, SteerReceiptEvent):
            waiting = self._receipts.get(event.steer_id)
            if waiting is not None and event.status != "queued" and not waiting.done():
                waiting.set_result(event)
        elif event.client_id == self.agent_link.client_id:
            for future in self._outputs:
                if not future.done():
                    future.set_result(event)

    def _status(self, event: StatusEvent) -> None:
        self._running = event.status not in ("idle", "error")
        if event.mode != self.mode:
            self.mode = event.mode
            self.send(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=event.mode)
            )

    def _turn_end(self, event: TurnEndEvent) -> None:
        self._running = False
        self._streamed.discard(event.turn_id)
        for future, after in list(self._turn_ends):
            if event.seq > after and not future.done():
                future.set_result(event)

    def _replay(self, event: Event) -> None:
        """History (session/load): prompts, whole messages, calls with their final state."""
        if isinstance(event, TurnStartEvent) and event.prompt:
            self.send(user_chunk(event.prompt))
        elif isinstance(event, MessageCompleteEvent):
            self._message(event)
        elif isinstance(event, ToolCallEvent) or event.type == "tool_result":
            for update in self.mapper(event):
                self.send(update)

    def _message(self, event: MessageCompleteEvent) -> None:
        for block in event.message.content:
            if isinstance(block, ThinkingBlock) and block.thinking:
                self.send(text_chunk(block.thinking, thought=True))
            elif isinstance(block, TextBlock) and block.text:
                self.send(text_chunk(block.text))

    def send(self, update: Any) -> None:
        if len(self._inflight) > 64:
            self._inflight = [t for t in self._inflight if not t.done()]
        self._inflight.append(asyncio.ensure_future(self._send_one(update)))

    async def _send_one(self, update: Any) -> None:
        try:
            await self.client.session_update(session_id=self.session_id, update=update)
        except Exception as exc:  # the host went away: the agent runs on in the gateway
            _log.warning("acp: session/update failed: %s", exc)

    async def flush(self) -> None:
        while pending := [t for t in self._inflight if not t.done()]:
            await asyncio.gather(*pending)
        self._inflight.clear()

    # -- permission requests -------------------------------------------------------------------

    def _ask(self, request: PermissionRequestEvent) -> None:
        if request.request_id in self._asks:
            return
        self._asks[request.request_id] = asyncio.ensure_future(self._answer(request))

    async def _answer(self, request: PermissionRequestEvent) -> None:
        await self.flush()  # the tool call it is about goes out first
        rule = request.suggested_rule
        call_id = request.tool_call_id or request.request_id
        call = permission_call(request, self.cwd, self.mapper.kinds.get(call_id, "other"))
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=call, options=permission_options(rule)
            )
        except Exception as exc:
            _log.warning("acp: request_permission failed: %s", exc)
            return  # unanswered here: the agent's other clients, or its policy, decide
        outcome = response.outcome
        decision, reason = "deny", "the ACP host cancelled the permission request"
        if isinstance(outcome, AllowedOutcome):
            choice = outcome.option_id
            if choice == ALLOW_ONCE:
                decision, reason = "allow", None
            elif choice == ALLOW_ALWAYS and rule:
                decision, reason = "allow_always", None
            elif choice == REJECT_ONCE:
                reason = "rejected in the ACP host"
            elif choice == REJECT_ALWAYS and rule:
                reason = f"denied always in the ACP host: {rule}"
            else:
                reason = f"the ACP host chose an option that was not offered: {choice!r}"
        command = PermissionResponseCommand(
            request_id=request.request_id,
            decision=decision,  # pyright: ignore[reportArgumentType]
            client_id=self.agent_link.client_id,
            reason=reason,
            rule=rule if decision == "allow_always" else None,
            label=self.host,
        )
        with contextlib.suppress(RequestError):
            if rule and isinstance(outcome, AllowedOutcome) and outcome.option_id == REJECT_ALWAYS:
                # first the agent's own /deny saves the rule with it (its rules.json), so the
                # calls that follow this answer already meet it
                deny = SlashCommand(
                    text=f"/deny {rule}", client_id=self.agent_link.client_id, label=self.host
                )
                await self._request(deny)
            reply = await self._request(command)
            if isinstance(reply, CommandReply) and not reply.ok:
                _log.info("acp: %s", reply.message)  # e.g. already decided in another tab

    # -- the ACP session -----------------------------------------------------------------------

    def modes(self) -> SessionModeState:
        available = [
            SessionMode(id=name, name=name.capitalize(), description=about)
            for name, about in MODES.items()
        ]
        return SessionModeState(current_mode_id=self.mode, available_modes=available)

    async def commands(self) -> AvailableCommandsUpdate:
        reply = await self._request(ListCommandsCommand())
        raw = reply.data.get("commands") if isinstance(reply, CommandReply) else None
        listed: list[AvailableCommand] = []
        for item in raw if isinstance(raw, list) else []:
            if not isinstance(item, dict):
                continue
            name, hint = str(item.get("name", "")).removeprefix("/"), str(item.get("hint", ""))
            listed.append(command_entry(name, str(item.get("description", "")), hint))
        self._command_names = {c.name for c in listed}
        return AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=listed
        )

    async def prompt(self, blocks: Sequence[ContentBlock]) -> PromptResponse:
        text, images = prompt_parts(blocks)
        command = (text[1:].split() or [""])[0] if text.startswith("/") else ""
        if not images and command in self._command_names:
            return await self._slash(text)
        if self._running:
            return await self._steer(text, images)
        end: asyncio.Future[TurnEndEvent] = asyncio.get_running_loop().create_future()
        reply = await self._request(
            PromptCommand(id=uuid.uuid4().hex[:12], text=text, images=images)
        )
        if isinstance(reply, CommandReply) and not reply.ok:
            if self._running or "busy" in reply.message or "running" in reply.message:
                return await self._steer(text, images)
            raise RequestError.invalid_request({"message": reply.message or "prompt refused"})
        self._running = True
        waiting = (end, self.agent_link.last_seq)
        self._turn_ends.append(waiting)
        try:
            finished = await asyncio.shield(end)
        except asyncio.CancelledError:
            await self.cancel()
            raise
        finally:
            self._turn_ends.remove(waiting)
        return await self._finish(finished)

    async def _finish(self, end: TurnEndEvent) -> PromptResponse:
        await self.flush()
        if end.reason == "error":
            raise RequestError.internal_error({"message": end.error or "the turn failed"})
        last = self._stops.pop(end.turn_id, None)
        prompted, run = self.mapper.turn_over(end.turn_id)
        if end.reason == "hook_stopped":
            reason, meta = hook_stop(prompted, run)
            return prompt_response(reason, end, meta)
        reason: StopReason = {"aborted": "cancelled", "max_steps": "max_turn_requests"}.get(
            end.reason, last if last in ("max_tokens", "refusal") else "end_turn"
        )  # pyright: ignore[reportAssignmentType]
        return prompt_response(reason, end)

    async def _steer(self, text: str, images: list[ImageBlock]) -> PromptResponse:
        steer_id = uuid.uuid4().hex[:12]
        loop = asyncio.get_running_loop()
        receipt: asyncio.Future[SteerReceiptEvent] = loop.create_future()
        end: asyncio.Future[TurnEndEvent] = loop.create_future()
        waiting = (end, self.agent_link.last_seq)
        self._receipts[steer_id] = receipt
        self._turn_ends.append(waiting)
        try:
            reply = await self._request(SteerCommand(text=text, steer_id=steer_id, images=images))
            if isinstance(reply, CommandReply) and not reply.ok:
                raise RequestError.invalid_request(
                    {"message": f"a turn was running and the steer was refused: {reply.message}"}
                )
            got = await receipt
            if got.status != "admitted":
                raise RequestError.invalid_request(
                    {"message": "a turn was running and the steer was not carried: "
                     f"{got.reason or got.status}", "steerId": steer_id, "status": got.status}
                )  # fmt: skip
            response = await self._finish(await end)
        finally:
            self._receipts.pop(steer_id, None)
            self._turn_ends.remove(waiting)
        response.field_meta = {"shard": {"steerId": steer_id, "steer": "admitted"}}
        return response

    async def _slash(self, text: str) -> PromptResponse:
        output: asyncio.Future[CommandOutputEvent] = asyncio.get_running_loop().create_future()
        self._outputs.append(output)
        try:
            command = SlashCommand(text=text, client_id=self.agent_link.client_id, label=self.host)
            reply = await self._request(command)
            try:
                got = await asyncio.wait_for(output, COMMAND_TIMEOUT)
                markdown = got.markdown
            except TimeoutError:
                markdown = reply.message if isinstance(reply, CommandReply) else ""
        finally:
            self._outputs.remove(output)
        if markdown:
            self.send(text_chunk(markdown))
        await self.flush()
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self) -> None:
        with contextlib.suppress(RequestError):
            await self._request(AbortCommand())

    async def set_mode(self, mode: str) -> None:
        reply = await self._request(SetModeCommand(mode=mode))
        if isinstance(reply, CommandReply) and not reply.ok:
            raise RequestError.invalid_params({"message": reply.message or f"mode {mode!r}"})
