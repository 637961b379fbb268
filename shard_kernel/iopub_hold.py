"""The private parts of ipykernel the agent kernel relies on, fenced in this one module:
`IOPubHold` (its IOPub socket), `KernelOverrides` (ShardKernel's base: what it overrides of
`Kernel`), `kernel_app_class` (the IPKernelApp it runs in). `RELIED_ON` lists every private or
undocumented name these use with the signature they expect; a test pins it against the installed
ipykernel (`tests/unit/kernel/test_ipykernel_parts.py`), so an ipykernel that renames one fails
there, not in a running kernel.

IOPubHold: what the main thread publishes while it handles a request reaches the IOPub thread
in one wake-up, once the request is answered or waits.

ipykernel sends IOPub messages from a thread of its own: each message handed to it wakes that
thread, and the woken thread takes the GIL, so the main thread waits for it to finish sending
before it can go on (0.15-0.25 ms per message, measured on the main thread of an agent kernel on
these machines, against a few µs when the thread is already awake). An empty cell publishes
`busy` and `execute_input` before its reply: two such waits on the reply's path.

While a hold is on, the main thread's messages are kept in order and handed over together on
`release`; the kernel holds from the start of a shell request until the request's task first
waits (or a turn starts, or a barrier needs the thread to have sent everything). A message from
any other thread releases the hold first, so IOPub order is kept across threads.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Coroutine
from typing import Any

import zmq
from ipykernel._version import kernel_protocol_version
from ipykernel.iostream import BackgroundSocket
from ipykernel.kernelbase import Kernel
from traitlets import Float

RELIED_ON: dict[str, str | None] = {
    "ipykernel.kernelbase.Kernel._execute_sleep": None,
    "ipykernel.kernelbase.Kernel._supports_kernel_subshells": None,
    "ipykernel.kernelbase.Kernel._publish_status_and_flush": (
        "(self, status, channel, stream, parent=None)"
    ),
    "ipykernel.kernelbase.Kernel._topic": "(self, topic)",
    "ipykernel.kernelbase.Kernel.shell_main": "(self, subshell_id: 'str | None', msg)",
    "ipykernel.kernelbase.Kernel.shell_stream": None,
    "ipykernel.kernelbase.Kernel.shell_channel_thread": None,
    "ipykernel.kernelbase.Kernel.dispatch_shell": (
        "(self, msg, /, subshell_id: 'str | None' = None, *, concurrent: 'bool' = False)"
    ),
    "ipykernel.kernelbase.Kernel._aborting": None,
    "ipykernel.kernelbase.Kernel._abort_queues": "(self, subshell_id: 'str | None' = None)",
    "ipykernel.kernelbase.Kernel.pre_handler_hook": "(self)",
    "ipykernel.kernelbase.Kernel.post_handler_hook": "(self)",
    "ipykernel.iostream.IOPubThread._really_send": "(self, msg, *args, **kwargs)",
    "ipykernel.iostream.IOPubThread.schedule": "(self, f)",
    "ipykernel.iostream.BackgroundSocket.__init__": "(self, io_thread)",
    "ipykernel.kernelapp.IPKernelApp.init_sockets": "(self)",
    "ipykernel.kernelapp.IPKernelApp._configure_logging": "(self) -> 'None'",
    "ipykernel.kernelapp.IPKernelApp.control_thread": None,
    "ipykernel._version.kernel_protocol_version": None,
}
"""`module.Class.name` → the signature relied on (None: an attribute, trait or property)."""

Held = list[tuple[tuple[Any, ...], dict[str, Any]]]

_ANSWERED_WHILE_BUSY = frozenset({"kernel_info_request", "comm_info_request"})


class IOPubHold(BackgroundSocket):
    """ipykernel's BackgroundSocket (the kernel's `iopub_socket`), with a hold."""

    def __init__(self, io_thread: Any) -> None:
        super().__init__(io_thread)
        # BackgroundSocket forwards other attribute writes to the zmq socket
        object.__setattr__(self, "_held", None)
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "_main", threading.get_ident())

    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self) -> bool:
        """Keep the main thread's messages until `release`. False when already holding."""
        with self._lock:
            if self._held is not None:
                return False
            object.__setattr__(self, "_held", [])
            return True

    def release(self) -> None:
        """Hand everything held to the IOPub thread (one wake-up) and stop holding."""
        with self._lock:
            held: Held | None = self._held
            object.__setattr__(self, "_held", None)
        if held:
            self._hand_over(held)

    def send_multipart(self, *args: Any, **kwargs: Any) -> None:
        if self._held is not None:
            if threading.get_ident() == self._main:
                with self._lock:
                    if self._held is not None:
                        self._held.append((args, kwargs))
                        return
            else:
                self.release()  # what the main thread published first goes first
        self._hand_over([(args, kwargs)])

    def _hand_over(self, messages: Held) -> None:
        thread: Any = self.io_thread
        send = getattr(thread, "_really_send", None)
        if send is None:  # an ipykernel without it: one hand-over per message, as before
            for args, kwargs in messages:
                thread.send_multipart(*args, **kwargs)
            return

        def send_all() -> None:
            for args, kwargs in messages:
                send(*args, **kwargs)

        thread.schedule(send_all)


class KernelOverrides(Kernel):
    """What ShardKernel changes of ipykernel's `Kernel` through its private parts.

    Subclasses set `iopub_hold` (None: no hold) and `_reply_first` before a reply."""

    _execute_sleep = Float(0.0).tag(config=True)
    """ipykernel sleeps 0.5 ms before every execute_reply so that buffered stdout reaches IOPub
    first; this kernel has no stdout stream and waits for its IOPub thread instead (see
    `_iopub_barrier`), so an empty cell's round trip does not pay the sleep."""

    iopub_hold: IOPubHold | None = None
    _reply_first = False
    _shell_context_base: contextvars.Context | None = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._arrivals: dict[int, int] = {}
        """a waiting request (by the identity of its frames) → its arrival count"""

    @property
    def kernel_info(self) -> dict[str, Any]:
        """The base class imports debugpy here to advertise a debugger; this kernel has none
        (its kernelspec says so), and the import cost 0.1 to 0.4 s on the first kernel_info."""
        return {
            "protocol_version": kernel_protocol_version,
            "implementation": self.implementation,
            "implementation_version": self.implementation_version,
            "language_info": self.language_info,
            "banner": self.banner,
            "help_links": self.help_links,
            "supported_features": ["kernel subshells"] if self._supports_kernel_subshells else [],
        }

    def route_shell(self) -> None:
        """Take shell requests straight off the socket (after `Kernel.start`)."""
        stream: Any = self.shell_stream
        if stream is not None and self.shell_channel_thread is None:
            # ipykernel wraps each shell message in a task that awaits a second task (to run it
            # in one persistent context): one task here, in that same kind of context, saves a
            # loop iteration per request.
            stream.on_recv(self._on_shell, copy=False)
            self._routed = True

    def _on_shell(self, msg: list[Any]) -> asyncio.Task[None]:
        loop = asyncio.get_running_loop()
        if self._shell_running and (answer := self._answer_while_busy(msg)) is not None:
            return loop.create_task(answer)
        self._arrivals[id(msg)] = self._arrived
        self._arrived += 1
        task = loop.create_task(self.shell_main(None, msg), context=self._shell_context_base)
        self._shell_running += 1
        task.add_done_callback(self._shell_done)
        hold = self.iopub_hold
        if hold is not None and hold.hold():
            # released after the task's first step: when it is answered, or when it first waits
            loop.call_soon(hold.release)
        return task

    _shell_running = 0
    """shell requests taken and not yet answered (a turn's execute_request, those behind it)"""

    # stop_on_error: a cell that fails aborts the execute_requests queued behind it (a notebook's
    # Run All), and none sent after its reply. ipykernel marks the queue after the reply has
    # gone, and ends the abort one loop step later: a cell sent the moment an interrupted turn
    # was answered could land in that window and be aborted (seen at load 10 here). Here the
    # queue is marked by arrival before the reply goes out.
    _arrived = 0
    """shell requests taken off the socket so far"""
    _abort_below = 0
    """execute_requests that arrived before this count and have not run yet are aborted"""

    async def dispatch_shell(
        self, msg: Any, /, subshell_id: str | None = None, *, concurrent: bool = False
    ) -> None:
        arrived = self._arrivals.pop(id(msg), None)
        if arrived is not None:  # taken by `_on_shell`: aborted if it was queued behind an error
            self._aborting = arrived < self._abort_below
        await super().dispatch_shell(msg, subshell_id=subshell_id, concurrent=concurrent)

    def finish_metadata(
        self, parent: dict[str, Any], metadata: dict[str, Any], reply_content: dict[str, Any]
    ) -> dict[str, Any]:
        """Before an error's execute_reply goes out: what has arrived by now is its queue."""
        content = parent.get("content") or {}
        stream: Any = self.shell_stream
        if (
            self._routed
            and reply_content.get("status") == "error"
            and not content.get("silent", False)
            and content.get("stop_on_error", True)
        ):
            stream.flush(zmq.POLLIN)  # what is on the socket was sent before the reply
            self._abort_below = self._arrived
        return super().finish_metadata(parent, metadata, reply_content)

    def _abort_queues(self, subshell_id: str | None = None) -> None:
        if not self._routed:
            super()._abort_queues(subshell_id)
        # else: `finish_metadata` marked the queue, `dispatch_shell` aborts what it holds

    _routed = False
    """`route_shell` took the shell socket (no shell-channel thread)"""

    def _shell_done(self, _: asyncio.Task[None]) -> None:
        self._shell_running -= 1

    def _answer_while_busy(self, msg: list[Any]) -> Coroutine[Any, Any, None] | None:
        """kernel_info and comm_info, answered at once while a cell runs, or None.

        ipykernel answers shell requests one at a time (comms excepted), and JupyterLab sends a
        new connection's messages, its `shard` comm_open among them, only once kernel_info is
        answered or 3 s have passed: a second tab on a notebook whose turn waits for a
        permission answer waited those 3 s before it could attach. Both are pure reads of the
        kernel's state; the handlers reply on the shell stream with this request as parent and
        never touch the parent of the cell that runs."""
        session: Any = self.session
        if session is None:
            return None
        try:
            idents, frames = session.feed_identities(msg, copy=False)
            # a peek (content=False) keeps no signature, so the usual path can still take it
            msg_type = session.deserialize(frames, content=False, copy=False)["header"]["msg_type"]
            if msg_type not in _ANSWERED_WHILE_BUSY:
                return None
            request = session.deserialize(frames, content=True, copy=False)
        except Exception:
            return None  # dispatch_shell reports a bad message, in turn
        return self._answer_now(msg_type, idents, request)

    async def _answer_now(self, msg_type: str, idents: list[Any], request: Any) -> None:
        # busy, the reply, idle, all with this request as parent: a client's request is done
        # when it has both the reply and the idle (JupyterLab's futures wait for both)
        self._publish_own_status("busy", request)
        try:
            await self.shell_handlers[msg_type](self.shell_stream, idents, request)
        finally:
            self._publish_own_status("idle", request)

    def _publish_own_status(self, state: str, parent: Any) -> None:
        session: Any = self.session
        session.send(
            self.iopub_socket,
            "status",
            {"execution_state": state},
            parent=parent,
            ident=self.iopub_topic("status"),
        )

    def _publish_status_and_flush(
        self, status: str, channel: str, stream: Any, parent: Any = None
    ) -> None:
        """After a cell that published nothing (an empty one), the reply leaves first: ipykernel
        builds and publishes the `idle` status before the queued reply goes (0.1-0.3 ms of
        every such round trip). After a cell with outputs, ipykernel's order stands: `idle`
        then the reply, which gives the IOPub thread the lead the barrier started (two sockets
        keep no order between them; a client that stops reading at the reply then has them)."""
        if self._reply_first and stream is not None and hasattr(stream, "flush"):
            stream.flush(zmq.POLLOUT)
        self._reply_first = False
        super()._publish_status_and_flush(status, channel, stream, parent)

    def iopub_topic(self, msg_type: str) -> bytes:
        """The IOPub topic ipykernel gives a message of this type from this kernel."""
        return self._topic(msg_type)

    def pre_handler_hook(self) -> None:
        """ipykernel installs the default SIGINT handler here; ours stays (interrupt = abort)."""

    def post_handler_hook(self) -> None:
        pass


def kernel_app_class() -> type:
    """IPKernelApp as the agent kernel runs in it (imported only by `python -m shard_kernel`)."""
    import os

    from ipykernel.kernelapp import IPKernelApp
    from traitlets import default

    class ShardKernelApp(IPKernelApp):
        @default("parent_handle")
        def _parent_handle_default(self) -> int:
            # ipykernel reads JPY_PARENT_PID when it is imported; a kernel forked from the
            # template (forkserver.py) was imported before its environment was its own.
            return int(os.environ.get("JPY_PARENT_PID") or 0)

        def init_sockets(self) -> None:
            super().init_sockets()
            # No shell-channel thread, so no kernel subshells: ipykernel 7's thread reads the
            # shell socket and hands every request to the main thread and every reply back
            # (about 0.7 ms per round trip here). Subshells let a Python kernel run code beside a
            # busy cell; an agent kernel never blocks its loop (a turn is awaited, and widget and
            # comm messages are dispatched while a cell runs), so it has nothing to run there.
            # kernel_info then does not advertise subshells, and JupyterLab does not ask.
            self.shell_channel_thread = None

        def _configure_logging(self) -> None:
            super()._configure_logging()
            # traitlets sets the application's logger to DEBUG and leaves the filtering to its
            # handlers, so each of ipykernel's four `log.debug` calls per request built a record
            # (and looked up its caller) to be thrown away. The logger passes what some handler
            # takes, and no less.
            log = self.log
            if isinstance(log, logging.Logger):
                level = min((h.level for h in log.handlers), default=logging.DEBUG)
                log.setLevel(max(level, 1))  # a NOTSET handler takes everything

        def start(self) -> None:
            super().start()  # returns once shutdown_request has stopped the shell loop
            # The control thread still publishes a last `idle` on IOPub after shutdown_reply. At
            # exit, atexit stops the IOPub thread (before app.close(), which joins the control
            # thread); a stop that lands between that publish's `is_alive()` check and its
            # wake-up send leaves the send blocked for good, and close() joins forever: the
            # kernel never exits by itself (ipykernel 7.4; 5 shutdowns in 91 here). So let the
            # control thread finish while IOPub is still running.
            control = self.control_thread
            if control is not None and control.is_alive():
                control.stop()
                control.join(timeout=5)

    return ShardKernelApp
