"""RemoteHub: a notebook's gateway link, the gateway agents it attached, and its dashboards.

The magics call it from the kernel's main thread; it blocks on the LoopThread with a timeout,
so a slow or missing gateway ends in a `GatewayError` that says what to do, never a hang.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from shard_core.protocol import AgentInfo
from shard_kernel.remote.agent import RemoteAgent
from shard_kernel.remote.dashboard import DashboardHost
from shard_kernel.remote.link import (
    PROBE_TIMEOUT,
    START_TIMEOUT,
    TIMEOUT,
    GatewayError,
    GatewayLink,
    connect,
    find_gateway,
)
from shard_kernel.remote.loop import LoopThread

T = TypeVar("T")


class RemoteHub:
    def __init__(self, on_attach: Callable[[RemoteAgent], None] | None = None) -> None:
        self.on_attach = on_attach
        self.link: GatewayLink | None = None
        self.agents: dict[str, RemoteAgent] = {}
        """attached agents by agent id"""
        self.dashboards: list[DashboardHost] = []
        self._loop: LoopThread | None = None

    @property
    def loop(self) -> LoopThread:
        if self._loop is None:
            self._loop = LoopThread()
        return self._loop

    def call(self, coro: Coroutine[Any, Any, T], within: float = TIMEOUT + 2) -> T:
        try:
            return self.loop.call(coro, within)
        except TimeoutError:
            raise GatewayError(f"the gateway did not answer within {within:g} s") from None

    # ------------------------------------------------------------ the gateway

    def connect(self, url: str | None, token: str | None) -> tuple[GatewayLink, list[AgentInfo]]:
        """Use the gateway at `url` (checked), or look for one again when no URL is given."""
        link = self.call(connect(url, token) if url else find_gateway(), START_TIMEOUT)
        self.link = link
        return link, self.call(link.agents())

    def gateway(self) -> GatewayLink:
        if self.link is None:
            self.link = self.call(find_gateway(), PROBE_TIMEOUT * 3 + TIMEOUT)
        return self.link

    def find(self, key: str) -> AgentInfo:
        link = self.gateway()
        return resolve(self.call(link.agents()), key, link.url)

    # ------------------------------------------------------------ agents

    def attach(self, key: str) -> RemoteAgent:
        """The agent named or numbered `key`, attached (a stopped one is resumed)."""
        info = self.find(key)
        agent = self.agents.get(info.id)
        if agent is None or not agent.connected:
            agent = agent or RemoteAgent(info, self.gateway(), self.loop)
            agent.open()
            self.agents[info.id] = agent
        if self.on_attach is not None:
            self.on_attach(agent)
        return agent

    def create(self, command: dict[str, Any]) -> RemoteAgent:
        """A new gateway agent (an `agent_create` body), attached like `attach` does."""
        info = self.call(self.gateway().create(command), START_TIMEOUT + 2)
        return self.attach(info.id)

    def kill(self, agent_id: str) -> AgentInfo:
        """Stop the agent's kernel (its session stays; attach resumes it)."""
        info = self.call(self.gateway().kill(agent_id))
        agent = self.agents.get(agent_id)
        if agent is not None:
            agent.close()
        return info

    def status(self, agent: RemoteAgent) -> str:
        info = self.call(agent.link.agent(agent.info.id))
        usage = agent.latest.get("usage")
        context = f"context {usage['context_tokens']}/{usage['context_window']}, " if usage else ""
        return (
            f"{agent.name}: {info.status}, {info.mode} mode, {info.model}, {context}"
            f"{info.usage.input_tokens} in / {info.usage.output_tokens} out tokens "
            f"(remote {info.id}, {info.runtime_state}, on {agent.link.url})"
        )

    def dashboard(self) -> DashboardHost:
        link = self.gateway()
        host = DashboardHost(self, link, self.call(link.agents()))
        self.dashboards.append(host)
        return host

    def close(self) -> None:
        for host in self.dashboards:
            host.stop()
        for agent in self.agents.values():
            agent.close()
        self.dashboards.clear()
        self.agents.clear()
        if self._loop is not None:
            self._loop.close()
            self._loop = None


def resolve(agents: list[AgentInfo], key: str, where: str) -> AgentInfo:
    """By id, else by name, else by a prefix of either that only one agent has."""
    for exact in ([a for a in agents if a.id == key], [a for a in agents if a.name == key]):
        if len(exact) == 1:
            return exact[0]
    matches = [a for a in agents if a.id.startswith(key) or a.name.startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise GatewayError(
            f"no agent {key!r} on the gateway at {where}; %shard dashboard lists them"
        )
    names = ", ".join(f"{a.name} ({a.id})" for a in matches[:6])
    raise GatewayError(f"{key!r} is ambiguous: it could be {names}; give the whole name or id")
