"""AgentRegistry: durable agents (manifests) and their kernels, through the kernel-manager API only.

Kernels are started, listed and stopped with `MappingKernelManager` calls alone, so the same
code drives local kernels and kernels a remote gateway hosts (`--GatewayClient.url`). Agent
configuration reaches the kernel as `KERNEL_SHARD_*` variables, but for its rules, which the
kernel reads from the manifest (a list may be longer than an environment holds; the kernel and
the server share SHARD_HOME, where its session log lives too). One asyncio lock per agent
makes concurrent attaches of a stopped agent start exactly one kernel. Agents come from
`POST /shard/api/agents` or are adopted from notebook sessions (`adoption.py`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from jupyter_server.gateway.managers import GatewayMappingKernelManager
from jupyter_server.utils import ensure_async

from shard_core.protocol.events import ClientCounts
from shard_core.protocol.orchestrator import (
    AgentCreateCommand,
    AgentInfo,
    AgentTerminal,
    RuntimeState,
)
from shard_core.types import Usage
from shard_kernel.agent_defaults import default_model
from shard_kernel.gateway.history import EventHistory, Tail
from shard_kernel.gateway.manifest import AgentManifest, ManifestStore, new_agent_id
from shard_kernel.gateway.security import REDACTOR
from shard_kernel.gateway.validation import kernel_env
from shard_kernel.gateway_reach import kernel_gateway_env
from shard_kernel.kernelspec import KERNEL_NAME
from shard_kernel.state_home import kernel_home_env

CREATE_REQUEST = "agent create request"
"""Where the rules of a REST-created agent come from, as its explanations name it."""


class UnknownAgentError(KeyError):
    """No manifest for this agent id (404)."""


class NameTakenError(ValueError):
    """Another agent already has this name (409)."""


class StartError(RuntimeError):
    """The kernel manager could not start the agent's kernel."""


class AgentRegistry:
    def __init__(self, kernel_manager: Any, home: Path, log: logging.Logger) -> None:
        self.km = kernel_manager
        self.log = log
        self.store = ManifestStore(home, log)
        self.manifests: dict[str, AgentManifest] = self.store.load_all()
        self._kernel_ids: dict[str, str] = {}
        self._starting: set[str] = set()
        self._failed: set[str] = set()
        self._started: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._histories: dict[str, EventHistory] = {}
        self._terminals: dict[str, dict[str, AgentTerminal]] = {}
        """each agent's server terminals by name, while they run (terminals.py)"""
        self.on_change: Callable[[str], None] = lambda agent_id: None
        self.reach_url: str | None = None
        """the URL remote kernels reach this server at (`ShardGateway.kernel_reach_url`)"""
        self._listing_failed = False
        """Called when this registry starts or stops an agent's kernel (events.py publishes it)."""

    # ------------------------------------------------------------ manifests

    def get(self, agent_id: str) -> AgentManifest:
        manifest = self.manifests.get(agent_id)
        if manifest is None:
            raise UnknownAgentError(agent_id)
        return manifest

    def create(self, command: AgentCreateCommand) -> AgentManifest:
        """Write the manifest (no await: the name check and the insert are one step)."""
        taken = {m.name.casefold() for m in self.manifests.values()}  # "Alpha" is "alpha"
        if command.name is not None and command.name.casefold() in taken:
            raise NameTakenError(command.name)
        cwd = str(Path(command.cwd).expanduser().resolve())
        manifest = AgentManifest(
            id=new_agent_id(),
            name=command.name or _free_name(Path(cwd).name or "agent", taken),
            cwd=cwd,
            model=command.model or _default_model(),
            mode=command.mode,
            permissions=command.permissions,
            rules_from=CREATE_REQUEST,
            headless_policy=command.headless_policy,
            permission_timeout=command.permission_timeout,
            skills=command.skills,
            agent_definition=command.agent,
            goal=command.goal,
            mcp_servers=command.mcp_servers,
            created=time.time(),
        )
        self.store.save(manifest)
        self.manifests[manifest.id] = manifest
        return manifest

    # ------------------------------------------------------------ kernels

    def kernel_id(self, agent_id: str) -> str | None:
        kernel_id = self._kernel_ids.get(agent_id)
        return kernel_id if kernel_id is not None and kernel_id in self.km else None

    async def attach(self, agent_id: str) -> str:
        """The agent's running kernel, started (resuming its session) if it is stopped."""
        manifest = self.get(agent_id)
        async with self._lock(agent_id):
            running = self.kernel_id(agent_id)
            if running is not None:
                return running
            env = self._env(manifest)
            try:
                return await self._start(
                    agent_id, lambda: self.km.start_kernel(kernel_name=KERNEL_NAME, env=env)
                )
            except Exception as exc:
                raise StartError(f"the kernel of agent {agent_id} could not start") from exc

    async def adopt(
        self,
        notebook: str | None,
        cwd: str,
        base_env: Mapping[str, str] | None,
        launch: Callable[[dict[str, str]], Awaitable[str]],
        *,
        name: str | None = None,
        defaults: Mapping[str, Any] | None = None,
    ) -> str:
        """Start a `shard` kernel the server was asked for (a notebook's) as a registry agent.

        `launch(env)` is the kernel manager's own start with the agent's variables in `env`.
        The agent is the notebook's stopped one (reopening a notebook resumes it), else a new
        one named `name` (the document's stem; made unique) or after `cwd`. Choosing it and
        marking it starting is one step (no await), so a concurrent adoption or attach cannot
        pick it too.
        """
        manifest = self._stopped_agent_of(notebook, cwd) or self._new_adopted(
            notebook, cwd, name, defaults or {}
        )
        self._starting.add(manifest.id)
        try:
            async with self._lock(manifest.id):
                env = self._env(manifest, base_env)
                kernel_id = await self._start(manifest.id, lambda: launch(env))
        finally:
            self._starting.discard(manifest.id)  # also when cancelled while waiting for the lock
        self.log.info("shard: adopted kernel %s as agent %s (%s)", kernel_id, manifest.id, notebook)
        return kernel_id

    def _stopped_agent_of(self, notebook: str | None, cwd: str) -> AgentManifest | None:
        if notebook is None:
            return None
        mine = [
            m
            for m in self.manifests.values()
            if (m.notebook, m.cwd) == (notebook, cwd)
            and m.id not in self._starting
            and self.kernel_id(m.id) is None
        ]
        return max(mine, key=lambda m: m.created) if mine else None

    def _new_adopted(
        self, notebook: str | None, cwd: str, name: str | None, defaults: Mapping[str, Any]
    ) -> AgentManifest:
        taken = {m.name.casefold() for m in self.manifests.values()}
        manifest = AgentManifest(
            **defaults,
            id=new_agent_id(),
            name=_free_name(name or Path(cwd).name or "agent", taken),
            cwd=cwd,
            notebook=notebook,
            created=time.time(),
        )
        self.store.save(manifest)
        self.manifests[manifest.id] = manifest
        return manifest

    async def _start(self, agent_id: str, start: Callable[[], Any]) -> str:
        """Run a kernel start for the agent (under its lock) and record the kernel."""
        self._starting.add(agent_id)
        self._failed.discard(agent_id)
        self._started[agent_id] = time.time()
        self.on_change(agent_id)
        try:
            kernel_id = str(await ensure_async(start()))
        except Exception as exc:
            self._failed.add(agent_id)
            self.log.error("shard: agent %s: kernel start failed: %r", agent_id, exc)
            raise
        finally:
            self._starting.discard(agent_id)
            self.on_change(agent_id)
        self._kernel_ids[agent_id] = kernel_id
        self.log.info("shard: agent %s runs in kernel %s", agent_id, kernel_id)
        return kernel_id

    def kernel_pid(self, agent_id: str) -> int | None:
        """The process id of the agent's kernel, when it runs on this machine."""
        kernel_id = self.kernel_id(agent_id)
        if kernel_id is None:
            return None
        provisioner = getattr(self.km.get_kernel(kernel_id), "provisioner", None)
        pid = getattr(provisioner, "pid", None)
        return pid if isinstance(pid, int) else None

    def add_terminal(self, agent_id: str, terminal: AgentTerminal) -> None:
        self._terminals.setdefault(agent_id, {})[terminal.name] = terminal
        self.on_change(agent_id)

    def drop_terminal(self, agent_id: str, name: str) -> None:
        if self._terminals.get(agent_id, {}).pop(name, None) is not None:
            self.on_change(agent_id)

    async def kill(self, agent_id: str) -> None:
        """Stop the kernel; the manifest, session and event log stay."""
        self.get(agent_id)
        async with self._lock(agent_id):
            kernel_id = self.kernel_id(agent_id)
            self._kernel_ids.pop(agent_id, None)
            self._failed.discard(agent_id)
            if kernel_id is not None:
                await ensure_async(self.km.shutdown_kernel(kernel_id, now=False))
                self.log.info("shard: agent %s stopped (kernel %s)", agent_id, kernel_id)
            self.on_change(agent_id)

    def _env(
        self, manifest: AgentManifest, base: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The agent's variables over `base` (the env the server was going to start with)."""
        shard = kernel_env(manifest)
        remote = isinstance(self.km, GatewayMappingKernelManager)
        if remote:  # a remote kernel must be told where the server reads its state, and
            shard.update(kernel_home_env())  # how it reaches the server (subagent tools)
            shard.update(kernel_gateway_env(reach_url=self.reach_url))
        if base is None:
            if remote:
                return shard  # the gateway client adds its own KERNEL_* and allowed variables
            base = os.environ  # a local kernel inherits the server's environment
        kept = {k: v for k, v in base.items() if not k.startswith("KERNEL_SHARD_")}
        return {**kept, **shard}

    def _lock(self, agent_id: str) -> asyncio.Lock:
        return self._locks.setdefault(agent_id, asyncio.Lock())

    # ------------------------------------------------------------ views

    async def infos(self, agent_ids: list[str] | None = None) -> list[AgentInfo]:
        models = await self._kernel_models()
        wanted = _tree_order(sorted(self.manifests.values(), key=lambda m: m.created))
        if agent_ids is not None:
            wanted = [self.get(a) for a in agent_ids]
        return [self._info(m, models) for m in wanted]

    async def info(self, agent_id: str) -> AgentInfo:
        return (await self.infos([agent_id]))[0]

    def history(self, agent_id: str) -> EventHistory:
        self.get(agent_id)
        if agent_id not in self._histories:
            self._histories[agent_id] = EventHistory(self.store.events_path(agent_id))
        return self._histories[agent_id]

    async def _kernel_models(self) -> dict[str, dict[str, Any]]:
        ours = [k for a in list(self._kernel_ids) if (k := self.kernel_id(a)) is not None]
        if not ours:
            return {}
        try:
            models = await ensure_async(self.km.list_kernels())
        except Exception as exc:  # e.g. a kernel gateway with kernel listing turned off
            # once: the events watcher lists every few seconds (events.py)
            log = self.log.debug if self._listing_failed else self.log.warning
            self._listing_failed = True
            log("shard: listing kernels failed (%s); using each kernel's model", exc)
            models = [await ensure_async(self.km.kernel_model(k)) for k in ours]
        return {str(m["id"]): m for m in models or [] if m}

    def _info(self, manifest: AgentManifest, models: dict[str, dict[str, Any]]) -> AgentInfo:
        kernel_id = self.kernel_id(manifest.id)
        model = models.get(kernel_id) if kernel_id is not None else None
        runtime = self._runtime(manifest.id, model)
        try:
            tail = self.history(manifest.id).tail()
        except OSError:
            tail = None
        last = tail.status if tail is not None else None
        usage = tail.usage if tail is not None else None
        error = self._start_failure(manifest.id, runtime, tail)
        if error is not None:
            runtime = "failed"
        elif runtime == "failed":
            start = manifest.id in self._failed
            error = "the agent's kernel could not start" if start else "the agent's kernel died"
        counts = (last or {}).get("clients") if runtime == "running" else None
        roles = ClientCounts.model_validate(counts) if counts else ClientCounts()
        return AgentInfo(
            id=manifest.id,
            name=manifest.name,
            cwd=manifest.cwd,
            model=manifest.model or (last or {}).get("model") or "default",  # as created
            mode=(last or {}).get("mode") or manifest.mode,
            status=_status(runtime, last),
            runtime_state=runtime,
            clients=roles.interactive + roles.observer,
            clients_by_role=roles,
            usage=Usage.model_validate(usage["total"]) if usage else Usage(),
            created=manifest.created,
            kernel_id=kernel_id if runtime != "stopped" else None,
            headless_policy=manifest.headless_policy,
            error=error,
            notebook=manifest.notebook,
            diagnostics=[str(d) for d in (last or {}).get("diagnostics") or []],
            agent_definition=manifest.agent_definition,
            parent_agent_id=manifest.parent_agent_id,
            alias=manifest.alias,
            title=(last or {}).get("title") or None,
            terminals=list(self._terminals.get(manifest.id, {}).values())
            if runtime == "running"
            else [],
        )

    def _start_failure(self, agent_id: str, runtime: RuntimeState, tail: Tail | None) -> str | None:
        """The message of a start failure the running kernel logged (none from older kernels)."""
        failure = tail.start_failure if tail is not None else None
        if runtime != "running" or failure is None:
            return None
        if float(failure.get("ts") or 0) < self._started.get(agent_id, float("inf")):
            return None
        return REDACTOR(str(failure.get("message") or "the agent could not start"))

    def _runtime(self, agent_id: str, model: dict[str, Any] | None) -> RuntimeState:
        if agent_id in self._starting:
            return "starting"
        if model is None:
            return "failed" if agent_id in self._failed else "stopped"
        # the kernel manager's "starting" lasts until a client talks to the kernel, but start_kernel
        # only returned once the kernel answered: it is running
        return "failed" if model.get("execution_state") == "dead" else "running"


def _default_model() -> str | None:
    """The model of an agent created without one, when config.json or the server names it (a
    provider's default is left to the kernel, which finds the same key)."""
    chosen = default_model()
    return chosen.model if chosen.source in ("config", "server") else None


def _tree_order(manifests: list[AgentManifest]) -> list[AgentManifest]:
    """Oldest first, each subagent right after its parent (and its parent's earlier children);
    a child whose parent is gone is listed as a root."""
    ids = {m.id for m in manifests}
    children: dict[str | None, list[AgentManifest]] = {}
    for m in manifests:
        parent = m.parent_agent_id if m.parent_agent_id in ids else None
        children.setdefault(parent, []).append(m)
    ordered: list[AgentManifest] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        node = stack.pop()
        ordered.append(node)
        stack.extend(reversed(children.get(node.id, [])))
    seen = {m.id for m in ordered}
    return ordered + [m for m in manifests if m.id not in seen]  # a damaged parent loop


def _status(runtime: RuntimeState, last: dict[str, Any] | None) -> Any:
    if runtime == "failed":
        return "error"
    if runtime == "stopped" or last is None:
        return "idle"
    return last.get("status") or "idle"


def _free_name(base: str, taken: set[str]) -> str:
    stem = "".join(c if c.isalnum() or c in "._-" else "-" for c in base)[:48].strip("-._")
    stem = stem or "agent"
    if stem.casefold() not in taken:
        return stem
    n = 2
    while f"{stem}-{n}".casefold() in taken:
        n += 1
    return f"{stem}-{n}"
