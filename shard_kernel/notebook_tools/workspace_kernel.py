"""WorkspaceKernel: the companion kernel an agent runs user code in, through jupyter_client.

The agent's own kernel is the `shard` kernel; code the agent runs for the user (python_exec,
notebook_run) goes to this second kernel — by default a `python3` kernel started in the agent's
cwd on first use, or an already running kernel named by its connection file (the notebook's own
kernel, for `%shard new --notebook this`). A call that is cancelled (the turn's abort) or runs
past its timeout interrupts the kernel, so a `time.sleep(60)` stops at once and the kernel and
its variables survive. The environment a started kernel gets has every secret scrubbed, as bash's,
and given a Sandbox it starts inside it (confined.py) — then never through the Jupyter server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shard_core.contracts import ToolContext
from shard_core.tools.environment import scrubbed_env
from shard_kernel.notebook_tools.server_kernel import JupyterServer, ServerKernel, ServerKernelError

if TYPE_CHECKING:  # imported where used: an agent that never runs code never pays for them
    from jupyter_client.asynchronous.client import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager

    from shard_core.tools.sandbox import Sandbox
    from shard_kernel.notebook_tools.confined import Confinement

Json = dict[str, Any]
OutputHook = Callable[[Json], None]
Alive = Callable[[], Awaitable[bool]]

READY_TIMEOUT = 60.0
DRAIN_TIMEOUT = 10.0
"""after an interrupt: how long to wait for the kernel to report the cell finished"""
SANDBOX_HINT = (
    " (it runs inside the sandbox: a kernelspec or environment under a hidden folder, e.g. HOME,"
    ' needs sandbox.extra_ro; sandbox.kernel "off" starts it outside)'
)
_OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error"})


class KernelError(Exception):
    """The workspace kernel could not be started or reached; the message is for the model."""


@dataclass
class Execution:
    """One execute request's outcome, outputs as nbformat output dicts."""

    outputs: list[Json] = field(default_factory=list[Json])
    execution_count: int | None = None
    status: str = "ok"
    interrupted: bool = False
    timed_out: bool = False
    notes: list[str] = field(default_factory=list[str])
    """what the sandbox moved away after the run (protected files it created)"""

    @property
    def error(self) -> Json | None:
        return next((o for o in self.outputs if o.get("output_type") == "error"), None)


class WorkspaceKernel:
    def __init__(
        self,
        cwd: Path | None = None,
        *,
        kernel_name: str = "python3",
        connection_file: Path | None = None,
        env: Mapping[str, str] | None = None,
        use_server: bool = True,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.cwd = cwd
        self.kernel_name = kernel_name
        self.connection_file = connection_file
        self._env = env
        self.use_server = use_server
        self.sandbox = sandbox
        """the sandbox a kernel this object starts runs in (None: the user's own process)"""
        self.sandboxed = False
        self._ctx: ToolContext | None = None
        self.server_kernel: ServerKernel | None = None
        self.manager: AsyncKernelManager | None = None
        self.client: AsyncKernelClient | None = None
        self.language: str | None = None
        self._folder: Path | None = None
        self._confinement: Confinement | None = None
        self._lock = asyncio.Lock()
        self._starting = asyncio.Lock()

    @property
    def owned(self) -> bool:
        """Whether this object started the kernel (and so may restart and shut it down)."""
        return self.connection_file is None

    @property
    def running(self) -> bool:
        return self.client is not None

    def describe(self) -> str:
        if not self.owned:
            return f"the notebook's own kernel ({self.connection_file})"
        if self.server_kernel is not None:
            server = self.server_kernel.server.url
            kernel = self.server_kernel.kernel_id
            return f"a {self.kernel_name} kernel in {self.cwd} (kernel {kernel} of {server})"
        if not self.running:
            where = self.cwd or "the agent's cwd"
            return f"a {self.kernel_name} kernel, started in {where} on first use (not running)"
        inside = ", in the sandbox" if self.sandboxed else ""
        return f"a {self.kernel_name} kernel in {self.cwd} (running{inside})"

    # ------------------------------------------------------------ lifecycle

    async def ensure(self, ctx: ToolContext | None = None) -> AsyncKernelClient:
        """The running kernel's client; the first call starts the kernel (in the calling tool's
        cwd, unless one was given at construction, and under its roots' sandbox)."""
        async with self._starting:
            self.cwd = self.cwd or (ctx.cwd if ctx is not None else None)
            self._ctx = self._ctx or ctx
            if self.client is None:
                self.client = await self._connect()
            return self.client

    async def _connect(self) -> AsyncKernelClient:
        if self.connection_file is not None:
            client = _client_for(self.connection_file)
        elif (prefix := await self._sandbox_prefix()) is not None:
            client = await self._start_here(prefix)
        elif (on_server := await self._start_on_server()) is not None:
            self.server_kernel = on_server
            client = _client_for(on_server.connection_file)
        else:
            client = await self._start_here()
        # A kernel we started is watched through its process (manager.is_alive); jupyter_client's
        # heartbeat thread only adds a socket that can fail in its own thread (seen: EMFILE
        # raised there while a sandboxed kernel that could not start was being stopped).
        client.start_channels(hb=self.manager is None)
        try:
            info = await _kernel_info(client, self.manager.is_alive if self.manager else None)
            if self.server_kernel is not None:
                await self._scrub(client)
        except (RuntimeError, TimeoutError) as exc:
            client.stop_channels()
            await self._stop_manager()
            hint = SANDBOX_HINT if self.sandboxed else ""
            raise KernelError(f"the workspace kernel did not become ready: {exc}{hint}") from None
        self.language = str(info.get("language_info", {}).get("name", "")) or None
        return client

    async def _sandbox_prefix(self) -> list[str] | None:
        """The bwrap argv the kernel starts under, or None (no sandbox, or it is off)."""
        if self.sandbox is None:
            return None
        from shard_kernel.notebook_tools.confined import SandboxError, confine

        cwd, folder, env = self.cwd or Path.cwd(), self._socket_folder(), self._kernel_env()
        try:
            self._confinement = await confine(self.sandbox, self._ctx, cwd, folder, env)
        except SandboxError as exc:
            raise KernelError(str(exc)) from None
        self.sandboxed = self._confinement is not None
        return None if self._confinement is None else self._confinement.argv

    def _kernel_env(self) -> dict[str, str]:
        return scrubbed_env(self._env if self._env is not None else os.environ)

    async def _start_here(self, prefix: list[str] | None = None) -> AsyncKernelClient:
        from jupyter_client.manager import AsyncKernelManager

        from shard_kernel.notebook_tools.confined import ConfinedKernelManager

        env = self._kernel_env()
        sockets = self._sockets()
        if prefix is None:
            self.manager = AsyncKernelManager(kernel_name=self.kernel_name, **sockets)
        else:
            self.manager = ConfinedKernelManager(prefix, kernel_name=self.kernel_name, **sockets)
        try:
            await self.manager.start_kernel(cwd=str(self.cwd or Path.cwd()), env=env)
        except Exception as exc:
            self.manager = None
            raise KernelError(f"cannot start a {self.kernel_name!r} kernel: {exc}") from None
        return self.manager.client()

    async def _start_on_server(self) -> ServerKernel | None:
        """A kernel of the Jupyter server that started this process, if there is one; any
        failure falls back to a kernel of our own."""
        server = JupyterServer.parent() if self.use_server else None
        if server is None:
            return None
        try:
            return await ServerKernel.start(server, self.kernel_name, self.cwd or Path.cwd())
        except (ServerKernelError, KeyError, ValueError):
            return None

    async def _scrub(self, client: AsyncKernelClient) -> None:
        """A server's kernel inherits the server's environment; drop the secrets in it, as a
        kernel started here never gets them."""
        kept = scrubbed_env(os.environ)
        names = sorted(k for k in os.environ if k not in kept)
        if not names:
            return
        code = f"import os as _o\nfor _k in {names!r}: _o.environ.pop(_k, None)\ndel _o, _k"
        msg_id = client.execute(code, silent=True, store_history=False)
        await _reply(client, msg_id, Execution())

    def _sockets(self) -> dict[str, str]:
        """Unix sockets in a private folder (no TCP port on a shared host), where libzmq can."""
        import zmq  # with the kernel it starts: an agent that never runs a cell loads no ZMQ

        if not zmq.has("ipc"):
            return {}
        folder = self._socket_folder()
        return {
            "transport": "ipc",
            "ip": str(folder / "k"),
            "connection_file": str(folder / "kernel.json"),
        }

    def _socket_folder(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="shard-ws-", dir="/tmp"))
        return self._folder

    async def restart(self, ctx: ToolContext | None = None) -> str:
        async with self._lock:
            if not self.owned:
                raise KernelError(
                    "the workspace kernel is the notebook's own kernel; restart it from the "
                    "notebook (Kernel → Restart), not from the agent"
                )
            if self.client is None:
                await self.ensure(ctx)
                return f"started {self.describe()}"
            if self.server_kernel is not None:
                await self.server_kernel.restart()
                await _kernel_info(self.client)
                await self._scrub(self.client)
            elif self.manager is not None:
                await self.manager.restart_kernel(now=True)
                await _kernel_info(self.client)
            return f"restarted {self.describe()}; every variable is gone"

    async def interrupt(self) -> None:
        if self.server_kernel is not None:
            await self.server_kernel.interrupt()
        elif self.manager is not None:
            await self.manager.interrupt_kernel()
        elif self.client is not None:
            # A kernel we did not start: ask it over the control channel (ipykernel signals
            # itself).
            self.client.control_channel.send(self.client.session.msg("interrupt_request", {}))

    async def shutdown(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.stop_channels()
        await self._stop_manager()
        if self._confinement is not None:  # what a cancelled last run planted goes too
            await asyncio.to_thread(self._confinement.settle)

    async def _stop_manager(self) -> None:
        on_server, self.server_kernel = self.server_kernel, None
        if on_server is not None:
            await on_server.shutdown()
        manager, self.manager = self.manager, None
        if manager is not None:
            with contextlib.suppress(Exception):
                await manager.shutdown_kernel(now=True)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    # ------------------------------------------------------------ running code

    async def execute(
        self,
        code: str,
        *,
        limit: float,
        on_output: OutputHook | None = None,
        silent: bool = False,
        ctx: ToolContext | None = None,
    ) -> Execution:
        """Run `code` for at most `limit` seconds; cancelling this call (the turn's abort)
        interrupts the kernel first."""
        client = await self.ensure(ctx)
        async with self._lock:
            msg_id = client.execute(code, silent=silent, store_history=not silent,
                                    allow_stdin=False)  # fmt: skip
            run = Execution()
            collect = asyncio.ensure_future(self._collect(client, msg_id, run, on_output))
            try:
                await asyncio.wait_for(asyncio.shield(collect), limit)
            except TimeoutError:
                run.timed_out = run.interrupted = True
                await self._interrupt_and_drain(collect)
            except asyncio.CancelledError:
                run.interrupted = True
                await asyncio.shield(self._interrupt_and_drain(collect))
                raise
            run.execution_count, run.status = await _reply(client, msg_id, run)
            if self._confinement is not None:
                run.notes = await asyncio.to_thread(self._confinement.settle)
            return run

    async def _interrupt_and_drain(self, collect: asyncio.Future[None]) -> None:
        await self.interrupt()
        try:
            await asyncio.wait_for(collect, DRAIN_TIMEOUT)
        except (TimeoutError, asyncio.CancelledError):
            collect.cancel()

    async def _collect(
        self, client: AsyncKernelClient, msg_id: str, run: Execution, hook: OutputHook | None
    ) -> None:
        while True:
            msg = await client.get_iopub_msg()
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "status" and msg["content"].get("execution_state") == "idle":
                return
            if kind == "clear_output":
                run.outputs.clear()
            elif kind in _OUTPUT_TYPES:
                output = output_from_msg(msg)
                _merge(run.outputs, output)
                if hook is not None:
                    hook(output)


def _client_for(connection_file: Path) -> AsyncKernelClient:
    from jupyter_client.asynchronous.client import AsyncKernelClient

    client = AsyncKernelClient()
    client.load_connection_file(str(connection_file))
    return client


def output_from_msg(msg: Json) -> Json:
    """An IOPub output message as the nbformat output a notebook stores."""
    kind, content = msg["msg_type"], msg["content"]
    if kind == "stream":
        return {"output_type": kind, "name": content["name"], "text": content["text"]}
    if kind == "error":
        fields = ("ename", "evalue", "traceback")
        return {"output_type": kind, **{k: content[k] for k in fields}}
    output: Json = {"output_type": kind, "data": content.get("data", {})}
    output["metadata"] = content.get("metadata", {})
    if kind == "execute_result":
        output["execution_count"] = content.get("execution_count")
    return output


def _merge(outputs: list[Json], output: Json) -> None:
    """Consecutive writes to the same stream become one output, as a notebook shows them."""
    last = outputs[-1] if outputs else None
    if (
        last is not None
        and output["output_type"] == "stream"
        and last.get("output_type") == "stream"
        and last.get("name") == output.get("name")
    ):
        last["text"] = str(last["text"]) + str(output["text"])
        return
    outputs.append(output)


async def _kernel_info(client: AsyncKernelClient, alive: Alive | None = None) -> Json:
    """Wait until the kernel answers a kernel_info request on shell AND its status for that
    request arrives on IOPub, asking again each second.

    The IOPub half matters after a start or restart: ZMQ's subscription reconnects after the
    shell socket does, and what the kernel publishes before that is lost — an execute's `idle`
    among it, so the next call would wait out its timeout. Not `wait_for_ready`: after the reply
    it drains IOPub until 0.2 s pass without a message, which never happens on a kernel someone
    else keeps busy (the user's own notebook kernel). `alive`: the started process's check, so a
    kernel that exits at once (a sandboxed kernelspec whose files are hidden) fails at once.
    """
    asked: set[str] = set()
    content: Json | None = None
    async with asyncio.timeout(READY_TIMEOUT):
        while True:
            if alive is not None and not await alive():
                raise RuntimeError("the kernel process exited")
            msg_id = client.kernel_info()
            asked.add(msg_id)
            with contextlib.suppress(TimeoutError):  # no answer this second: ask again
                async with asyncio.timeout(1.0):
                    while content is None:
                        reply = await client.get_shell_msg()
                        if reply.get("parent_header", {}).get("msg_id") in asked:
                            content = dict(reply["content"])
                    while True:
                        msg = await client.get_iopub_msg()
                        if msg.get("parent_header", {}).get("msg_id") in asked:
                            return content


async def _reply(client: AsyncKernelClient, msg_id: str, run: Execution) -> tuple[int | None, str]:
    """The execute_reply's count and status (other replies, e.g. from an earlier interrupted
    request, are skipped)."""
    try:
        async with asyncio.timeout(DRAIN_TIMEOUT):
            while True:
                reply = await client.get_shell_msg()
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    content = reply["content"]
                    return content.get("execution_count"), str(content.get("status", "ok"))
    except TimeoutError:
        return None, "error" if run.error else "aborted"
