"""RemoteAgent: one gateway agent's kernel as the AgentController its AgentWidgets are bound to.

It resumes the agent through the gateway, opens the kernel's channels, attaches on the `shard`
comm as an interactive client through an AgentLink (heartbeats keep it counted as a responder;
a gap in seq is synced before the events after it), pushes every event to its widgets in seq
order, and answers the widget's clicks by sending the same commands on that comm. Network work
runs on the LoopThread; the controller methods block the caller (the kernel's main thread) for
at most COMMAND_TIMEOUT seconds and never raise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from shard_core.protocol import (
    AbortCommand,
    AgentInfo,
    ClientRole,
    Command,
    CommandReply,
    PermissionResponseCommand,
    PromptCommand,
    SetModeCommand,
    SnapshotReply,
    SteerCommand,
    SyncCommand,
    UiResponseCommand,
)
from shard_core.protocol.commands import (
    InjectCommand,
    ListCommandsCommand,
    RewindCommand,
    SetTitleCommand,
    SlashCommand,
)
from shard_core.protocol.events import TurnEndEvent
from shard_core.protocol.link import SYNC_LIMIT_MAX, AgentLink
from shard_core.types import ContextKind, ImageBlock
from shard_kernel.agent_client import AgentConnection, LinkError, SocketTransport
from shard_kernel.gateway.client import KernelSocket, msg_type, parent_id
from shard_kernel.remote.link import START_TIMEOUT, GatewayError, GatewayLink
from shard_kernel.remote.loop import LoopThread
from shard_widgets import AgentWidget, Mentions, ShownNotebook
from shard_widgets._controller import PermissionDecision, UiValue
from shard_widgets._transcript import DEFAULT_MAX_EVENTS

log = logging.getLogger("shard_kernel.remote")
COMMAND_TIMEOUT = 10.0
DETACH_WAIT = 2.0
"""Longest a detach waits for the kernel to confirm it (a kernel that is gone never does)."""
PAGE = SYNC_LIMIT_MAX
CONNECT_TIMEOUT = START_TIMEOUT + 3 * COMMAND_TIMEOUT

OnReply = Callable[[CommandReply | SnapshotReply], None]


class RemoteAgent:
    def __init__(self, info: AgentInfo, link: GatewayLink, loop: LoopThread) -> None:
        self.info = info
        self.name = info.name
        self.link = link
        self.loop = loop
        self.client_id = f"notebook-{uuid.uuid4().hex[:10]}"
        self.role: ClientRole = "interactive"
        self.widgets: list[AgentWidget] = []
        self.connected = False
        self.agent_link = AgentLink(self.client_id, backlog=DEFAULT_MAX_EVENTS)
        """the protocol side, kept across connections (it holds the last seq seen)"""
        self.state: dict[str, Any] = {"status": info.status, "mode": info.mode, "model": info.model}
        self.latest: dict[str, dict[str, Any]] = {}
        """the newest status and usage events, to seed a new widget"""
        self._sock: KernelSocket | None = None
        self._conn: AgentConnection | None = None
        self._turns: dict[str, tuple[Future[TurnEndEvent], int | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._confirming: dict[str, asyncio.Future[None]] = {}
        """kernel_info requests sent after a comm_close, by msg_id: their reply confirms it"""

    # ------------------------------------------------------------ the notebook side (blocking)

    def open(self) -> None:
        """Connect (resuming a stopped agent); GatewayError says why not."""
        self._blocking_call(self.connect(), CONNECT_TIMEOUT, "attaching")

    def widget(self, *, history: bool = False) -> AgentWidget:
        """A new widget bound to this agent: live from now on, or from its recent history."""
        widget = AgentWidget(controller=self, **self._traits())
        for older in self.widgets:
            older.supersede()
        seeds = list(self.latest.values())
        if seeds:
            widget.push_many(seeds)
        if history and self.connected:
            self._blocking_call(self._replay(widget), CONNECT_TIMEOUT, "loading the history")
        else:
            self.widgets.append(widget)
        return widget

    def prompt(
        self, text: str, images: Sequence[ImageBlock] = (), *, blocking: bool = False
    ) -> Future[TurnEndEvent]:
        """Starts a turn (refused while one runs); the future ends with its turn_end.

        `blocking`: the caller waits on the turn (`%%shard --wait`, as in an nbclient run), so
        nobody can click in this notebook: it attaches as an observer until the turn ends, and
        with no other interactive client the agent's headless policy answers asks at once."""
        end: Future[TurnEndEvent] = Future()
        self._blocking_call(
            self._start_turn(text, list(images), end, blocking),
            CONNECT_TIMEOUT,
            "sending the prompt",
        )
        return end

    def command(self, command: Command) -> CommandReply:
        """Sends one command and returns the agent's reply; failures become `ok: false`."""
        try:
            reply = self.loop.call(self._send(command), COMMAND_TIMEOUT + 1)
        except (GatewayError, TimeoutError) as exc:
            message = str(exc) or f"agent {self.name} did not answer in time"
            return CommandReply(command=command.type, ok=False, message=message)
        if isinstance(reply, CommandReply):  # the widget puts its own command id on it
            return reply.model_copy(update={"command_id": None})
        return CommandReply(command=command.type, ok=True)

    def close(self) -> None:
        """Detach this notebook (the agent keeps running in the gateway)."""
        with contextlib.suppress(Exception):
            self.loop.call(self.aclose(), COMMAND_TIMEOUT)

    def _blocking_call(self, coro: Any, within: float, doing: str) -> Any:
        try:
            return self.loop.call(coro, within)
        except TimeoutError:
            raise GatewayError(
                f"agent {self.name}: no answer within {within:g} s {doing}"
            ) from None

    def _traits(self) -> dict[str, Any]:
        return {k: v for k, v in self.state.items() if k in ("status", "mode", "model", "demo")}

    # ------------------------------------------------------------ the widget's composer

    def send_prompt(self, text: str, images: Sequence[ImageBlock]) -> CommandReply:
        """The widget's composer while no turn runs: starts one (refused while one runs)."""
        try:
            self.prompt(text, images)
        except GatewayError as exc:
            return CommandReply(command="prompt", ok=False, message=str(exc))
        return CommandReply(command="prompt", ok=True, message="started")

    def mention_contexts(self, text: str, shown: ShownNotebook | None = None) -> Mentions:
        """Resolved in this notebook's kernel; `@file:` from the agent's folder on this machine."""
        from shard_kernel import widget_mentions  # only when a widget's message has mentions

        ns = widget_mentions.user_namespace()
        return widget_mentions.resolve(text, Path(self.info.cwd), ns, self.info.id, shown)

    def mention_options(
        self, word: str, shown: ShownNotebook | None = None
    ) -> list[dict[str, str]]:
        from shard_kernel import widget_mentions

        ns = widget_mentions.user_namespace()
        return widget_mentions.options(word, Path(self.info.cwd), ns, shown)

    # ------------------------------------------------------------ AgentController

    def respond_permission(
        self,
        request_id: str,
        decision: PermissionDecision,
        *,
        client_id: str,
        rule: str | None,
        reason: str | None,
        label: str | None = None,
    ) -> CommandReply:
        return self.command(
            PermissionResponseCommand(
                request_id=request_id,
                decision=decision,
                label=label,
                client_id=client_id,
                rule=rule,
                reason=reason,
            )
        )

    def respond_ui(
        self, request_id: str, value: UiValue, *, client_id: str, label: str | None = None
    ) -> CommandReply:
        return self.command(
            UiResponseCommand(request_id=request_id, value=value, client_id=client_id, label=label)
        )

    def abort(self) -> CommandReply:
        return self.command(AbortCommand())

    def steer(
        self,
        text: str,
        images: Sequence[ImageBlock] = (),
        *,
        steer_id: str | None = None,
        replace: bool = False,
        queue: bool = False,
    ) -> CommandReply:
        return self.command(
            SteerCommand(
                text=text, images=list(images), steer_id=steer_id, replace=replace, queue=queue
            )
        )

    def inject(
        self, text: str, kind: ContextKind = "note", label: str | None = None
    ) -> CommandReply:
        return self.command(InjectCommand(text=text, kind=kind, label=label))

    def set_title(self, title: str) -> CommandReply:
        return self.command(SetTitleCommand(title=title))

    def set_mode(self, mode: str) -> CommandReply:
        return self.command(SetModeCommand(mode=mode))

    def run_command(
        self, text: str, *, client_id: str | None = None, label: str | None = None
    ) -> CommandReply:
        """A `/` command; its `command_output` event reaches every widget like any other."""
        return self.command(SlashCommand(text=text, client_id=client_id, label=label))

    def list_commands(self) -> CommandReply:
        return self.command(ListCommandsCommand())

    def rewind(self, command: RewindCommand) -> CommandReply:
        """Checkpoints through the agent's kernel: every attached client sees the rewind."""
        return self.command(command)

    # ------------------------------------------------------------ connection (on the loop)

    @property
    def last_seq(self) -> int:
        return self.agent_link.last_seq

    async def connect(self) -> None:
        await self._drop_socket()
        self.info = await self.link.attach(self.info.id)
        if self.info.kernel_id is None:
            raise GatewayError(f"agent {self.name} did not start: see the gateway's log")
        try:
            sock = await KernelSocket.open(
                self.link.url, self.info.kernel_id, token=self.link.token, within=COMMAND_TIMEOUT
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise GatewayError(
                f"cannot open agent {self.name}'s kernel channels at {self.link.url}: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        self._sock = sock
        conn = AgentConnection(
            SocketTransport(sock, self.agent_link, comm_prefix="notebook"),
            sock.recv,
            on_events=self._on_events,
            on_attached=self._take_snapshot,
            on_other=self._route,
        )
        conn.on_closed = lambda: self._connection_closed(conn, sock)
        self._conn = conn
        conn.start()
        await self._attach()
        self.connected = True

    async def _attach(self) -> None:
        """Attach on a fresh comm; its snapshot (and the pages after it) catch the widgets up."""
        conn = self._conn
        if conn is None:
            raise GatewayError(f"agent {self.name} is not connected: %shard attach {self.name}")
        try:
            await conn.attach(self.role, within=COMMAND_TIMEOUT)
        except LinkError as exc:
            if conn.closed or "did not answer" in str(exc):
                raise GatewayError(f"agent {self.name}: {exc}") from None
            raise GatewayError(f"agent {self.name} refused the attach: {exc}") from None

    def _take_snapshot(self, reply: SnapshotReply) -> None:
        """An attach's state and pending asks (its events came just before, as events)."""
        self.state.update(status=reply.status, mode=reply.mode, model=reply.model)
        state = reply.model_copy(update={"events": []})
        for widget in list(self.widgets):
            widget.apply_snapshot(state)

    async def _replay(self, widget: AgentWidget) -> None:
        """Recent history into a new widget, which then joins the live stream in order."""

        def start(reply: CommandReply | SnapshotReply) -> None:
            if isinstance(reply, SnapshotReply):
                widget.apply_snapshot(reply)
            self.widgets.append(widget)

        since = max(-1, self.last_seq - DEFAULT_MAX_EVENTS)
        first = await self._send(SyncCommand(since=since, limit=PAGE), on_reply=start)
        if isinstance(first, SnapshotReply):
            await self._page(first, [widget])

    async def _page(self, page: SnapshotReply, widgets: list[AgentWidget]) -> None:
        """The rest of a paged snapshot: only the newest DEFAULT_MAX_EVENTS are worth fetching."""
        until = page.last_seq
        while page.has_more and page.events:
            since = max(page.events[-1].seq, until - DEFAULT_MAX_EVENTS)
            reply = await self._send(SyncCommand(since=since, until=until, limit=PAGE))
            if not isinstance(reply, SnapshotReply):
                return
            page = reply
            for widget in widgets:
                widget.push_many(page.events)

    async def _start_turn(
        self, text: str, images: list[ImageBlock], end: Future[TurnEndEvent], blocking: bool
    ) -> None:
        if not self.connected:
            await self.connect()
        if blocking:
            await self._set_role("observer")
            end.add_done_callback(lambda _: self._spawn(self._set_role("interactive")))
        command = PromptCommand(id=_new_id(), text=text, images=images)
        key = command.id
        assert key is not None

        def started(reply: CommandReply | SnapshotReply) -> None:
            if key in self._turns and isinstance(reply, CommandReply) and reply.ok:
                self._turns[key] = (end, self.last_seq)  # its turn_end comes later

        self._turns[key] = (end, None)
        try:
            reply = await self._send(command, on_reply=started)
        except BaseException:
            self._turns.pop(key, None)
            raise
        if isinstance(reply, CommandReply) and not reply.ok:
            self._turns.pop(key, None)
            raise GatewayError(f"agent {self.name}: {reply.message}")

    async def _set_role(self, role: ClientRole) -> None:
        """Attach again in `role` (the kernel keeps one role per comm)."""
        if self.role == role:
            return
        self.role = role
        if self.connected:
            try:
                await self._attach()
            except GatewayError as exc:
                log.warning("shard: %s", exc)

    async def aclose(self) -> None:
        self.connected = False
        await self._drop_socket(confirm=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _drop_socket(self, *, confirm: bool = False) -> None:
        """Leave: close the comm, and with `confirm` wait (briefly) until the kernel has
        handled it, so the agent's client count is true when this returns."""
        sock, self._sock = self._sock, None
        conn, self._conn = self._conn, None
        if sock is None or conn is None:
            return
        with contextlib.suppress(Exception):  # a socket the server already closed
            conn.detach()
            if confirm:  # shell requests are answered in order: this reply follows it
                asked = sock.send("shell", "kernel_info_request", {})
                done = self._confirming[asked] = asyncio.get_running_loop().create_future()
                try:
                    await asyncio.wait_for(done, DETACH_WAIT)
                finally:
                    self._confirming.pop(asked, None)
            await asyncio.sleep(0)  # let the comm_close go out first
        await conn.aclose()
        await sock.aclose()  # closes the TCP socket whatever happens
        self._disconnected(f"agent {self.name} was detached")

    def _connection_closed(self, conn: AgentConnection, sock: KernelSocket) -> None:
        sock.close()  # closed by the other end, the socket still holds its half
        if conn is self._conn:
            self._conn, self._sock = None, None
            self._disconnected(f"the connection to agent {self.name} closed")

    # ------------------------------------------------------------ commands and replies

    async def _send(
        self, command: Command, *, on_reply: OnReply | None = None
    ) -> CommandReply | SnapshotReply:
        conn = self._conn
        if conn is None or conn.closed:
            raise GatewayError(f"agent {self.name} is not connected: %shard attach {self.name}")
        try:
            return await conn.request(command, within=COMMAND_TIMEOUT, on_reply=on_reply)
        except LinkError as exc:
            raise GatewayError(f"agent {self.name}: {exc}") from None

    def _route(self, message: dict[str, Any]) -> None:
        """A message that is not the link's."""
        if msg_type(message) == "kernel_info_reply":
            done = self._confirming.get(parent_id(message) or "")
            if done is not None and not done.done():
                done.set_result(None)
        elif msg_type(message) == "shutdown_reply":
            # the agent was killed (DELETE keeps this socket open and only says so on IOPub):
            # say "stopped" now instead of a command timing out later while showing idle
            self._stopped()

    def _stopped(self) -> None:
        if not self.connected:
            return
        self._disconnected(f"agent {self.name} was stopped: the next prompt restarts it")
        self._spawn(self._drop_socket())
        self.state["status"] = "stopped"
        for widget in list(self.widgets):
            widget.status = "stopped"
            widget.pending, widget.pending_ui = [], []

    def _on_events(self, events: list[dict[str, Any]]) -> None:
        """Events in seq order, each once (the link synced any gap before them)."""
        for event in events:
            self._on_event(event)

    def _on_event(self, event: dict[str, Any]) -> None:
        seq, kind = event["seq"], event.get("type")
        if kind == "status":
            self.state.update({k: event[k] for k in ("status", "mode", "model", "demo")})
        if kind in ("status", "usage"):
            self.latest[str(kind)] = event
        for widget in list(self.widgets):
            if widget.comm is None:  # closed: it drops out (in place: the main thread appends)
                with contextlib.suppress(ValueError):
                    self.widgets.remove(widget)
                continue
            widget.push(event)
        if kind == "turn_end":
            # the engine's next status says the same; a `--wait` ends before it arrives
            self.state["status"] = "error" if event.get("reason") == "error" else "idle"
            self._end_turns(seq, event)

    def _end_turns(self, seq: int, event: dict[str, Any]) -> None:
        for key, (end, after) in list(self._turns.items()):
            if after is not None and seq > after:
                del self._turns[key]
                if not end.done():
                    end.set_result(TurnEndEvent.model_validate(event))

    def _disconnected(self, why: str) -> None:
        self.connected = False
        error = GatewayError(why)
        for end, _ in list(self._turns.values()):
            if not end.done():
                end.set_exception(error)
        self._turns.clear()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


def _new_id() -> str:
    return uuid.uuid4().hex[:12]
