"""ShardKernel: an agent as a Jupyter kernel — cells are prompts, comms carry everything else.

A thin adapter over `shard_core.sdk`: execute_request runs a turn; events go out once each on
IOPub (a comm_msg on the `shard-events` comm id, which every client of the kernel receives; a
burst leaves as one `event_batch`, see event_batch.py);
clients attach, answer permission prompts, steer and abort through comms on target `shard`,
which ipykernel ≥ 7.4 dispatches while the turn's execute_request is still awaiting.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import re
import signal
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import comm
import ipykernel.ipkernel  # noqa: F401  (points the `comm` package at ipykernel's CommManager)
from ipykernel.iostream import BackgroundSocket

from shard_core import __version__
from shard_core.engine.event_log import EventLog
from shard_core.engine.events import EventStream
from shard_core.engine.state import private_dir, shard_home
from shard_core.protocol.events import (
    AGENT_START_FAILED,
    ClientCounts,
    ErrorEvent,
    Event,
    PermissionRequestEvent,
    PermissionResolvedEvent,
    StatusEvent,
    UiRequestEvent,
    UiResolvedEvent,
)
from shard_core.protocol.link import COMM_TARGET, EVENTS_COMM_ID
from shard_core.types.errors import ConfigError, ShardError
from shard_kernel.agent_env import PREFIX, AgentEnv, kernel_hint, read_agent_env
from shard_kernel.cell_output import CellOutput, display_updates
from shard_kernel.clients import ClientRegistry
from shard_kernel.comm_commands import CommCommands
from shard_kernel.event_batch import EventBatcher, asyncio_schedule
from shard_kernel.iopub_hold import IOPubHold, KernelOverrides
from shard_kernel.plain_text import plain_text
from shard_kernel.ui_bridge import CommUiBridge
from shard_kernel.warm_start import WarmStart, settle_collections
from shard_kernel.widget_host import WidgetHost

if TYPE_CHECKING:
    from shard_core.engine.config import ShardConfig
    from shard_core.sdk import Agent

CLIENTS_SETTLE = 0.25
"""Seconds of attach/detach quiet before a status event reports the new client counts."""
IOPUB_BARRIER_TIMEOUT = 1.0
"""Longest a cell's reply waits for the IOPub thread to send the cell's outputs (s)."""
_AGENT_ID = re.compile(r"^agent-[A-Za-z0-9_-]+$")


def boot_failure(exc: BaseException) -> str:
    """What to tell about an agent that could not start: no traceback, secrets redacted."""
    from shard_core.engine.compaction.redact import redact  # the engine: loaded with the agent

    text = str(exc) if isinstance(exc, ShardError) else f"{type(exc).__name__}: {exc}"
    return redact(text.strip().splitlines()[0] if text.strip() else type(exc).__name__)[:500]


class ShardKernel(KernelOverrides):
    implementation = "shard"
    implementation_version = __version__
    language_info = {
        "name": "shard",
        "mimetype": "text/markdown",
        "file_extension": ".md",
        "pygments_lexer": "markdown",
        "codemirror_mode": "markdown",
    }
    banner = f"Shard {__version__}: each cell is a prompt to the agent; /help lists commands."

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.comm_manager = comm.get_comm_manager()
        for msg_type in ("comm_open", "comm_msg", "comm_close"):
            self.shell_handlers[msg_type] = getattr(self.comm_manager, msg_type)
        self.comm_manager.register_target(COMM_TARGET, self._on_comm_open)
        self.clients = ClientRegistry()
        self.pending: dict[str, PermissionRequestEvent] = {}
        self.pending_ui: dict[str, UiRequestEvent] = {}
        self.ui: CommUiBridge | None = None
        self.agent: Agent | None = None
        self.boot_error: str | None = None
        self._notes_shown = False
        """whether a cell has shown the agent's start diagnostics yet (the first prompt does)"""
        self._ready = asyncio.Event()
        self._asked = asyncio.Event()
        """set by the first request that needs the agent; `_first_cell` is its cell's code"""
        self._first_cell: str | None = None
        self._shell_context_base = contextvars.copy_context()
        self._reply_first = False
        self._turn_ran = False
        """this cell ran a turn (its execute_reply says so: see finish_metadata)"""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cell: CellOutput | None = None
        self._events_parent: dict[str, Any] | None = None
        self._clients_timer: asyncio.TimerHandle | None = None
        self._sweep_timer: asyncio.TimerHandle | None = None
        self._clients_reported: ClientCounts | None = None
        self.event_log: EventLog | None = None
        self.batcher = EventBatcher(
            lambda data, parent: self._publish(EVENTS_COMM_ID, data, parent), self._on_iopub
        )
        self.commands = CommCommands(self)
        self.widgets = WidgetHost(self, self.comm_manager, self.shell_handlers)
        self.warm = WarmStart(self.shell_handlers, self.session, os.environ)
        self.iopub_hold: IOPubHold | None = None
        if isinstance(self.iopub_socket, BackgroundSocket) and self.iopub_thread is not None:
            self.iopub_hold = self.iopub_socket = IOPubHold(self.iopub_thread)

    # ------------------------------------------------------------ startup

    def start(self) -> None:
        if self.warm.waiting:  # a pool's kernel: the engine now, the agent once it is bound
            self.warm.preload()
        super().start()
        self.route_shell()
        signal.signal(signal.SIGINT, self._on_sigint)
        self.io_loop.add_callback(self._boot)

    def release_iopub(self) -> None:
        """Hand what the main thread holds for IOPub to the IOPub thread now (see IOPubHold)."""
        if self.iopub_hold is not None:
            self.iopub_hold.release()

    async def _boot(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self.warm.bound()
        try:
            env, notebook_note = await self._notebook_env(read_agent_env())
            self.agent = await self._create(env)
            if notebook_note:
                self.agent.session.diagnostics.append(notebook_note)
            note = f"no KERNEL_SHARD_AGENT_ID was given; this kernel created agent {env.agent_id}"
            # The first status says what was left out (e.g. project files without trust).
            lines = [note] if env.generated_id else []
            lines += self.agent.session.diagnostics
            self.emit_status("\n".join(lines) or None)
        except Exception as exc:  # reported on every cell and to the gateway, not a dead kernel
            self.boot_error = boot_failure(exc)
            self.log.error("shard agent failed to start: %s", self.boot_error)
            self._report_boot_failure(self.boot_error)
        finally:
            self._ready.set()
            settle_collections()  # what exists now lives as long as the kernel (warm_start.py)

    async def _notebook_env(self, env: AgentEnv) -> tuple[AgentEnv, str | None]:
        """`env` with the `metadata.shard` of the notebook this kernel runs (own_notebook.py).
        A kernel that can only tell its notebook by its first cell waits for that cell."""
        from shard_kernel.own_notebook import find_own_notebook

        own = find_own_notebook(os.environ, Path.cwd())
        if own.waits_for_first_cell:
            await self._asked.wait()
            own.pick_by_first_cell(self._first_cell)
        if own.path is not None:
            self.log.info("shard: settings from the notebook %s", own.path)
        return own.agent_env(env, os.environ, self.log), own.note

    async def _create(self, env: AgentEnv) -> Agent:
        # The engine, the tools and the capabilities are imported here, with the agent: the
        # kernel itself starts (and answers kernel_info) without them.
        from shard_core.sdk import create_agent
        from shard_kernel.notebook_tools import NotebookSetup, notebook_extension
        from shard_kernel.recovery import recover
        from shard_kernel.slash import kernel_commands

        folder = private_dir(shard_home() / "agents" / env.agent_id)
        self.event_log = EventLog(folder / "events.jsonl")
        events = EventStream(env.agent_id, start_seq=self.event_log.next_seq)
        events.subscribe(self._on_event)
        self.ui = CommUiBridge(
            events, self.clients.has_responder, timeout=env.permission_timeout or 60.0
        )
        agent = await create_agent(
            cwd=env.cwd,
            model=env.model,
            mode=env.mode,
            agent_definition=env.agent_definition,
            skills=env.skills,
            agent_id=env.agent_id,
            resume=True,
            allow=env.allow,
            deny=env.deny,
            rules_from=env.rules_from,
            parent_agent_id=env.parent_agent_id,
            goal=env.goal,
            config=_with_servers(env.mcp_servers),
            trust_project=env.trust_project,
            headless_policy=env.headless_policy,
            permission_timeout=env.permission_timeout,
            has_responder=lambda: self.clients.has_responder() or self.widgets.has_responder(),
            events=events,
            extension_ui=self.ui,
            extensions=[
                kernel_commands(self),
                notebook_extension(NotebookSetup.from_env(os.environ)),
            ],
        )
        recover(agent, self.event_log)
        notes = agent.session.diagnostics  # the list every status event carries
        notes[:] = [kernel_hint(line) for line in notes]
        return agent

    async def ready_agent(self, cell: str | None = None) -> Agent:
        """The agent, once it has started; `cell` is the code of the cell that asks (the first
        one may tell the kernel which notebook it runs, see `_notebook_env`)."""
        if not self._asked.is_set():
            self._first_cell = cell
            self._asked.set()
        await self._ready.wait()
        if self.agent is None:
            raise ShardError(f"the agent could not start: {self.boot_error}")
        return self.agent

    def _report_boot_failure(self, message: str) -> None:
        """Log (and publish) an error event, so the gateway lists the agent as failed."""
        agent_id = os.environ.get(PREFIX + "AGENT_ID", "").strip()
        if not _AGENT_ID.match(agent_id):
            return
        try:
            if self.event_log is None:
                folder = private_dir(shard_home() / "agents" / agent_id)
                self.event_log = EventLog(folder / "events.jsonl")
            event = ErrorEvent(
                agent_id=agent_id,
                seq=self.event_log.next_seq,
                ts=time.time(),
                code=AGENT_START_FAILED,
                message=f"the agent could not start: {message}",
            )
            self.event_log.append(event)
            self.publish_comm(EVENTS_COMM_ID, event.model_dump(mode="json"))
        except Exception as exc:  # the log line above already says why the agent is down
            self.log.error("could not record the start failure: %s", type(exc).__name__)

    # ------------------------------------------------------------ clients

    def emit_status(self, message: str | None = None) -> None:
        """A status event that also says who is attached (the gateway's registry reads it)."""
        if self.agent is None:
            return
        session = self.agent.session
        self._clients_reported = counts = self.clients.counts()
        session.events.emit(
            StatusEvent,
            status=session.status,
            mode=session.mode,
            model=session.provider.model,
            demo=session.config.demo,
            message=message,
            clients=counts,
            diagnostics=list(session.diagnostics),
            title=session.title,
            goal=session.goal,
            todos=session.todos,
        )

    def clients_changed(self) -> None:
        """A client attached, detached or changed role: report it once things settle."""
        if self._loop is None:
            return
        if self._sweep_timer is None:
            self._sweep_timer = self._loop.call_later(self.clients.ttl / 4, self._sweep_clients)
        if self._clients_timer is None:
            self._clients_timer = self._loop.call_later(CLIENTS_SETTLE, self._report_clients)

    def _report_clients(self) -> None:
        self._clients_timer = None
        if self.clients.counts() != self._clients_reported:
            self.emit_status()

    def _sweep_clients(self) -> None:
        """While clients are attached, a few times a TTL: one no longer heard from (its socket
        gone without a comm_close, e.g. behind a remote kernel gateway) stops counting."""
        self._sweep_timer = None
        self._report_clients()
        if self.clients.clients() and self._loop is not None:
            self._sweep_timer = self._loop.call_later(self.clients.ttl / 4, self._sweep_clients)

    # ------------------------------------------------------------ events out

    def _on_event(self, event: Event) -> None:
        if isinstance(event, StatusEvent):
            if event.clients is None:
                event.clients = self.clients.counts()  # the first handler: logged and sent
            # what clients (and the gateway's registry) last heard, whoever emitted it: a
            # turn's status events carry the counts too, so a detach after one must be told
            self._clients_reported = event.clients
        if self.event_log is not None:
            self.event_log.append(event)
        if isinstance(event, PermissionRequestEvent):
            self.pending[event.request_id] = event
        elif isinstance(event, PermissionResolvedEvent):
            self.pending.pop(event.request_id, None)
        elif isinstance(event, UiRequestEvent) and event.ui != "notify":
            self.pending_ui[event.request_id] = event
        elif isinstance(event, UiResolvedEvent):
            self.pending_ui.pop(event.request_id, None)
        parent = self._events_parent or self.get_parent("shell")
        self.batcher.add(event.model_dump(mode="json"), parent)
        if self._cell is not None:
            self._cell.handle(event)
        if self._cell is None or self._cell.updates:  # a dialog replaces its prompt's output
            self.widgets.handle(event, self._events_parent)

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def current_request(self) -> dict[str, Any]:
        return self.get_parent("shell") or {}

    def flush_events(self) -> None:
        """Publish the events waiting for a batch now (before any other message, to keep order)."""
        self.batcher.flush()

    def publish_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        """One comm_msg on IOPub: every client of the kernel receives it."""
        self.flush_events()
        self._publish(comm_id, data)

    def _publish(self, comm_id: str, data: dict[str, Any], parent: Any = None) -> None:
        session: Any = self.session
        if session is None:
            return
        session.send(
            self.iopub_socket,
            "comm_msg",
            {"comm_id": comm_id, "data": data},
            parent=parent or self._events_parent or self.get_parent("shell"),
            ident=self.iopub_topic("comm_msg"),
        )

    def _on_iopub(self, delay: float, callback: Any) -> None:
        """Run `callback` after `delay` s on the IOPub thread (the batcher's timer; see there)."""
        thread: Any = self.iopub_thread
        if thread is None or not thread.thread.is_alive():
            asyncio_schedule(delay, callback)
            return
        thread.schedule(lambda: thread.io_loop.call_later(delay, callback))

    # ------------------------------------------------------------ cells

    async def do_execute(  # type: ignore[override]
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool = False,
        *,
        cell_meta: dict[str, Any] | None = None,
        cell_id: str | None = None,
    ) -> dict[str, Any]:
        # kernelbase's execute_request has already counted this cell
        text = code.strip()
        self._reply_first = not text
        self._turn_ran = False
        if text:
            self.release_iopub()  # `busy` and `execute_input` go before the turn starts
        parent = self.get_parent("shell")
        try:
            agent = await self.ready_agent(text)
            if not text:
                return self._ok()
            if text.startswith("/"):
                return await self._slash(agent, text, parent)
            from shard_kernel.mention_text import inject_file_mentions  # with the agent

            inject_file_mentions(agent, text)  # a refused one is this cell's error: no turn
            return await self._turn(agent, text, parent)
        except ShardError as exc:
            return self._error(type(exc).__name__, str(exc), parent)
        finally:
            self.flush_events()  # before execute_reply and the idle status
            if text:
                await self._iopub_barrier()

    async def _iopub_barrier(self) -> None:
        """Return once the IOPub thread has sent everything published so far.

        The reply leaves on the shell socket from this thread, the outputs from the IOPub
        thread, so without this a cell's last outputs and events could reach a client after its
        execute_reply. The loop keeps serving comm messages while it waits."""
        self.release_iopub()
        thread: Any = self.iopub_thread
        if thread is None or not thread.thread.is_alive():
            return
        loop = asyncio.get_running_loop()
        sent = loop.create_future()

        def mark() -> None:
            if not sent.done():
                sent.set_result(None)

        thread.schedule(lambda: loop.call_soon_threadsafe(mark))
        try:
            await asyncio.wait_for(sent, IOPUB_BARRIER_TIMEOUT)
        except TimeoutError:
            self.log.warning("the IOPub thread sent nothing for %.1f s", IOPUB_BARRIER_TIMEOUT)

    def finish_metadata(
        self, parent: dict[str, Any], metadata: dict[str, Any], reply_content: dict[str, Any]
    ) -> dict[str, Any]:
        """A cell that ran a turn says so in its execute_reply's metadata (`shard.turn`), so a
        client that follows the turn's events knows to wait for its `turn_end`."""
        metadata = super().finish_metadata(parent, metadata, reply_content)
        if self._turn_ran:
            metadata["shard"] = {"turn": True}
        return metadata

    async def _turn(self, agent: Agent, text: str, parent: dict[str, Any]) -> dict[str, Any]:
        try:
            updates = display_updates(os.environ)
        except ConfigError as exc:  # before the turn: the prompt is not run, nothing logged
            return self._error("ConfigError", str(exc), parent)
        self._turn_ran = True
        self._show_start_notes(agent, parent)
        cell = CellOutput(
            lambda kind, content: self.send_output(kind, content, parent), updates=updates
        )
        self._cell, self._events_parent = cell, parent
        try:
            end = await agent.run(text)
        except asyncio.CancelledError:
            return self._error("Interrupted", "the turn was stopped", parent)
        finally:
            cell.finish()  # a stopped turn's text lands too, for every client
            self.flush_events()  # this turn's last events carry its parent header
            self._cell = None
            self._events_parent = None
        if end.reason == "completed":
            return self._ok()
        if end.reason == "aborted":
            return self._error("Interrupted", "the turn was stopped before it finished", parent)
        return self._error("TurnError", end.error or f"the turn ended: {end.reason}", parent)

    async def _slash(self, agent: Agent, text: str, parent: dict[str, Any]) -> dict[str, Any]:
        """The cell's output is the command's own display, and no event: a cell's IOPub stays
        what any Jupyter client validates (the chat tab and the widget send `slash` commands,
        whose output is a `command_output` event)."""
        from shard_core.engine.slash_commands import PromptTurn, run_command  # with the agent

        markdown = await run_command(agent.host, text)
        if isinstance(markdown, PromptTurn):  # a prompt command: its text is this cell's turn
            return await self._turn(agent, str(markdown), parent)
        self.send_output(
            "display_data",
            {
                "data": {"text/markdown": markdown, "text/plain": plain_text(markdown)},
                "metadata": {},
            },
            parent,
        )
        return self._ok()

    def _show_start_notes(self, agent: Agent, parent: dict[str, Any]) -> None:
        """The first prompt cell says what the agent left out (a notebook without the widget
        sees no status event), e.g. project files without KERNEL_SHARD_TRUST_PROJECT=1."""
        if self._notes_shown or not agent.session.diagnostics:
            return
        self._notes_shown = True
        lines = "".join(f"note: {line}\n" for line in agent.session.diagnostics)
        self.send_output("stream", {"name": "stderr", "text": lines}, parent)

    def send_output(self, kind: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        self.flush_events()
        session: Any = self.session
        if session is not None:
            session.send(
                self.iopub_socket, kind, content, parent=parent, ident=self.iopub_topic(kind)
            )

    def _ok(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "execution_count": self.execution_count,
            "payload": [],
            "user_expressions": {},
        }

    def _error(self, ename: str, evalue: str, parent: dict[str, Any]) -> dict[str, Any]:
        content = {"ename": ename, "evalue": evalue, "traceback": [f"{ename}: {evalue}"]}
        self.send_output("error", content, parent)
        return {"status": "error", "execution_count": self.execution_count, **content}

    async def do_complete(self, code: str, cursor_pos: int) -> dict[str, Any]:  # type: ignore[override]
        prefix = code[:cursor_pos]
        matches: list[str] = []
        start = 0
        if prefix.startswith("/") and " " not in prefix:
            from shard_core.engine.slash_commands import command_names  # with the agent

            host = self.agent.host if self.agent is not None else None
            matches = [c for c in command_names(host) if c.startswith(prefix)]
        elif prefix.startswith("/mode ") and self.agent is not None:
            word = prefix[len("/mode ") :]
            start = len("/mode ")
            matches = [m for m in sorted(self.agent.session.modes) if m.startswith(word)]
        elif self.agent is not None:
            from shard_kernel.mention_text import complete_mention  # with the agent

            matches, start = complete_mention(prefix, self.agent.session.config.cwd) or ([], 0)
        return {
            "status": "ok",
            "matches": matches,
            "cursor_start": start,
            "cursor_end": cursor_pos,
            "metadata": {},
        }

    async def do_is_complete(self, code: str) -> dict[str, Any]:  # type: ignore[override]
        if code.strip() == "/mode":
            return {"status": "incomplete", "indent": ""}
        return {"status": "complete"}

    # ------------------------------------------------------------ subshells (none)

    async def create_subshell_request(self, socket: Any, ident: Any, parent: Any) -> None:
        """ipykernel logs and sends nothing when subshells are off; a client would wait forever."""
        self._no_subshells(socket, ident, parent, "create_subshell_reply")

    async def delete_subshell_request(self, socket: Any, ident: Any, parent: Any) -> None:
        self._no_subshells(socket, ident, parent, "delete_subshell_reply")

    async def list_subshell_request(self, socket: Any, ident: Any, parent: Any) -> None:
        session: Any = self.session
        if session is not None:
            session.send(socket, "list_subshell_reply", {"status": "ok", "subshell_id": []},
                         parent, ident)  # fmt: skip

    def _no_subshells(self, socket: Any, ident: Any, parent: Any, reply_type: str) -> None:
        session: Any = self.session
        if session is None:
            return
        content = {
            "status": "error",
            "ename": "SubshellsUnsupported",
            "evalue": "a shard agent kernel has no subshells (its kernel_info does not list"
            " 'kernel subshells'); send comm and widget messages on the main shell channel",
            "traceback": [],
        }
        session.send(socket, reply_type, content, parent, ident)

    # ------------------------------------------------------------ comms in

    def _on_comm_open(self, comm: Any, msg: dict[str, Any]) -> None:
        session = msg.get("header", {}).get("session")
        self.commands.open(comm, msg["content"].get("data") or {}, session)

    # ------------------------------------------------------------ interrupt and shutdown

    def _on_sigint(self, signum: int, frame: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.interrupt_turn)

    def interrupt_turn(self) -> bool:
        """Cancel the running turn. A pending ask is withdrawn by the gate as the cancellation
        reaches it (withdrawing first would race it: on Python 3.11 `wait_for` returns a result
        that arrives with the cancellation and swallows the cancel)."""
        if self.agent is None:
            return False
        return self.agent.abort()

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:  # type: ignore[override]
        for timer in (self._clients_timer, self._sweep_timer):
            if timer is not None:
                timer.cancel()
        try:
            if self.agent is not None:
                await self.agent.close()
            self.flush_events()
            if self.event_log is not None:
                self.event_log.close()
        except Exception:
            self.log.error("error while shutting down the agent:\n%s", traceback.format_exc())
        return {"status": "ok", "restart": restart}


def _with_servers(servers: Mapping[str, Mapping[str, object]] | None) -> ShardConfig | None:
    """The user's config plus the MCP servers the agent's create request added (None: the
    config as create_agent loads it)."""
    if not servers:
        return None
    from shard_core.engine.config import load_config

    config = load_config()
    added = {name: dict(entry) for name, entry in servers.items()}
    return config.model_copy(update={"mcp_servers": {**config.mcp_servers, **added}})
