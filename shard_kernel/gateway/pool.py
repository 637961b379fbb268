"""The warm agent pool: `PooledKernelManager`, jupyter_server's kernel manager with N `shard`
kernels started and booted ahead of any agent, and `WarmableKernelManager`, the one-kernel
manager whose first start may be a bind instead of a launch.

ShardGateway makes `PooledKernelManager` the server's kernel manager (`jupyter lab`, `jupyter
server`, `shard gateway`) unless one is configured or kernels live on a kernel gateway, where
the pool is off (a kernel gateway starts its kernels itself; Enterprise Gateway has no pool of
Shard's). `--PooledKernelManager.pool_size=N` sets the pool (default 1, 0 turns it off);
`shard batch` and `shard demo` start their one kernel without a server, so no pool.

A pool kernel is started like any other (the same kernelspec, ports, connection file), with
the server's environment less its `KERNEL_SHARD_*` variables and with `SHARD_WARM_KERNEL=1`:
it imports the engine and waits (warm_start.py). It is kept out of the manager's kernels, so
no listing, WebSocket, culler or session sees it. Every start of a `shard` kernel that names
no kernel id (an agent's create or attach, a Launcher notebook, `%shard new`, a subagent: all
come through `start_kernel`) takes a ready one, if there is one, and binds it in one message
with exactly what a cold start would have given the process (environment and folder); then the
pool refills in the background. A bound kernel is never given back: when its agent stops, its
process ends; a restart is a cold start with the agent's own arguments. A bind that fails ends
that kernel and starts the agent cold. Each warm kernel costs a kernel process's memory (about
what an idle agent kernel holds, bench/pool_start.py prints it); the gateway's `stop_extension`
ends the pool's kernels, those still starting included (and `shutdown_all` too, with the rest).

`WarmableKernelManager` also forks its `shard` kernels from the server's template instead of
spawning them (forked.py; `fork_kernels`), pool kernels and cold starts alike.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_server.auth.decorator import authorized
from jupyter_server.services.kernels.kernelmanager import (
    AsyncMappingKernelManager,
    ServerKernelManager,
)
from tornado import web
from traitlets import Bool, Integer, default

from shard_kernel.gateway.forked import (
    ForkedProcess,
    ForkingProvisioner,
    close_shared_template,
    fork_default,
    shared_template,
)
from shard_kernel.gateway.handlers import ShardAPIHandler
from shard_kernel.kernelspec import KERNEL_NAME
from shard_kernel.warm_start import BIND_REQUEST, WARM_VARIABLE

READY_TIMEOUT = 120.0
"""Longest a pool kernel may take to answer kernel_info (a loaded machine: several seconds)."""
BIND_TIMEOUT = 30.0
AGENT_PREFIX = "KERNEL_SHARD_"


class WarmableKernelManager(ServerKernelManager):
    """A kernel manager that can start its kernel warm and later bind it (else as its base)."""

    warm = False
    """started warm and not yet bound"""

    fork_kernels = Bool(
        config=True,
        help="""Fork `shard` kernels from the server's pre-imported template (gateway/forked.py)
        instead of spawning them. Default: off; on under Linux with SHARD_FORK_KERNELS=1.""",
    )

    @default("fork_kernels")
    def _default_fork_kernels(self) -> bool:
        return fork_default()

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        if self.provisioner is None and self.fork_kernels and self._forkable_spec():
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
            self.provisioner = ForkingProvisioner(
                kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self
            )
        return await super()._async_pre_start_kernel(**kw)

    def _forkable_spec(self) -> bool:
        """The shard kernelspec with no provisioner of its own named in kernel.json."""
        spec = self.kernel_spec
        return (
            self.kernel_name == KERNEL_NAME
            and spec is not None
            and not (spec.metadata or {}).get("kernel_provisioner")
        )

    async def launch_warm(self, kernel_id: str) -> None:
        """Start the kernel warm and return once it answers (its engine imported)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_PREFIX)}
        start: Any = super().start_kernel  # decorated in jupyter_server: (*args, **kwargs)
        await start(kernel_id=kernel_id, env={**env, WARM_VARIABLE: "1"})
        client: AsyncKernelClient = self.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=READY_TIMEOUT)
        finally:
            client.stop_channels()
        self.warm = True

    def alive(self) -> bool:
        process = getattr(self.provisioner, "process", None)
        return process is not None and process.poll() is None

    async def start_kernel(self, *args: Any, **kwargs: Any) -> None:
        if not self.warm:
            return await super().start_kernel(*args, **kwargs)
        self.warm = False
        kwargs.pop("kernel_id", None)
        try:
            await self._bind(kwargs)
        except Exception as exc:
            self.log.warning("shard: binding a pool kernel failed (%s); starting cold", exc)
            await end(self)
            return await super().start_kernel(*args, **kwargs)
        # a restart starts the bound agent cold, from what its start asked for
        self._launch_args = {k: v for k, v in kwargs.items() if k != "transport_encryption"}
        self.log.info("shard: kernel %s taken from the pool", self.kernel_id)

    async def _bind(self, kwargs: dict[str, Any]) -> None:
        env = dict(kwargs.get("env") or os.environ)  # what the provisioner would launch with
        # as jupyter_client's launcher sets it: the process whose end ends the kernel
        process = getattr(self.provisioner, "process", None)
        forked = isinstance(process, ForkedProcess)
        env["JPY_PARENT_PID"] = str(process.template.pid if forked else os.getpid())
        cwd = str(kwargs.get("cwd") or os.getcwd())
        client: AsyncKernelClient = self.client()
        client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
        try:
            msg = client.session.msg(BIND_REQUEST, {"env": env, "cwd": cwd})
            client.shell_channel.send(msg)
            while True:
                reply = await client.get_shell_msg(timeout=BIND_TIMEOUT)
                if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                    break
        finally:
            client.stop_channels()
        content = reply["content"]
        if content.get("status") != "ok":
            raise RuntimeError(content.get("evalue") or "the kernel refused the bind")


async def end(km: Any, *, now: bool = True) -> None:
    """Shut one kernel manager's kernel down (jupyter_server's wrapper hides the signature)."""
    await km.shutdown_kernel(now=now)


class PooledKernelManager(AsyncMappingKernelManager):
    pool_size = Integer(
        1,
        min=0,
        config=True,
        help="""Agent kernels kept started and booted, not yet bound to an agent; each agent
        start takes one and the pool refills. 0: every agent kernel starts cold.""",
    )

    @default("kernel_manager_class")
    def _default_kernel_manager_class(self) -> str:  # pyright: ignore[reportIncompatibleMethodOverride]
        return f"{__name__}.WarmableKernelManager"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pool: list[WarmableKernelManager] = []
        self._filling: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def warm_kernel_ids(self) -> list[str]:
        """The pool's ready kernels (none of them is in the manager's kernels)."""
        return [str(km.kernel_id) for km in self._pool]

    @property
    def starting(self) -> int:
        return len(self._filling)

    def retire_template(self) -> None:
        template = shared_template(start=False)
        if template is not None:
            template.retire()

    def fill_pool(self) -> None:
        """Start pool kernels until there are `pool_size` ready or starting (on the loop)."""
        if self._closed or self.kernel_spec_manager is None:
            return
        for _ in range(self.pool_size - len(self._pool) - len(self._filling)):
            task = asyncio.get_running_loop().create_task(self._warm_one())
            self._filling.add(task)
            task.add_done_callback(self._filling.discard)

    async def _warm_one(self) -> None:
        kernel_id = self.new_kernel_id()
        km: WarmableKernelManager = self.kernel_manager_factory(
            connection_file=os.path.join(self.connection_dir, f"kernel-{kernel_id}.json"),
            parent=self,
            log=self.log,
            kernel_name=KERNEL_NAME,
            kernel_spec_manager=self.kernel_spec_manager,
        )
        try:
            await km.launch_warm(kernel_id)
        except BaseException as exc:
            if km.has_kernel:
                await end(km)
            if isinstance(exc, asyncio.CancelledError):
                raise
            self.log.warning("shard: a pool kernel could not start: %r", exc)
            return
        if self._closed:
            await end(km)
            return
        self._pool.append(km)
        self.log.info("shard: pool kernel %s ready", kernel_id)

    def pre_start_kernel(self, kernel_name: str | None, kwargs: Any) -> Any:
        """A ready pool kernel for a `shard` start that names no kernel id, else a new one."""
        km = self._take(kernel_name, kwargs)
        if km is None:
            return super().pre_start_kernel(kernel_name, kwargs)
        kwargs.pop("kernel_id", None)
        self.fill_pool()
        return km, KERNEL_NAME, str(km.kernel_id)

    def _take(self, kernel_name: str | None, kwargs: Any) -> WarmableKernelManager | None:
        if (kernel_name or self.default_kernel_name) != KERNEL_NAME or "kernel_id" in kwargs:
            return None
        while self._pool:
            km = self._pool.pop(0)
            if km.alive():
                return km
            self.log.warning("shard: pool kernel %s died while warm", km.kernel_id)
            asyncio.get_running_loop().create_task(end(km))
        return None

    async def close_pool(self, now: bool = False) -> None:
        """End the pool's kernels, those still starting too; nothing refills it after."""
        self._closed = True
        filling = list(self._filling)
        for task in filling:
            task.cancel()
        await asyncio.gather(*filling, return_exceptions=True)
        pool, self._pool = self._pool, []
        await asyncio.gather(*(end(km, now=now) for km in pool), return_exceptions=True)

    async def _async_shutdown_all(self, now: bool = False) -> None:
        await self.close_pool(now=now)
        await super()._async_shutdown_all(now=now)
        if await close_shared_template():  # after the kernels: their parent poller watches it
            self.log.info("shard: the fork template ended")

    shutdown_all = _async_shutdown_all  # pyright: ignore[reportAssignmentType]


class PoolHandler(ShardAPIHandler):
    """`GET /shard/api/pool`: the pool's size and its kernels ready and starting (no ids: a
    pool kernel belongs to no one yet, and nobody connects to it)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        km = self.kernel_manager
        pooled = isinstance(km, PooledKernelManager)
        state = {
            "size": km.pool_size if pooled else 0,
            "ready": len(km.warm_kernel_ids) if pooled else 0,
            "starting": km.starting if pooled else 0,
        }
        self.reply(state)


POOL_ROUTES: tuple[tuple[str, type[Any]], ...] = ((r"/shard/api/pool", PoolHandler),)
