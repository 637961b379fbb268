"""DashboardHost: an AgentDashboard filled from the gateway's registry, kept current while shown.

It follows the gateway's pushed orchestrator events (`/shard/api/events`, resuming with `since`
after a dropped connection) on the LoopThread until the widget is closed; when the subscription
cannot be opened (an older gateway, a proxy that refuses WebSockets) it polls
`GET /shard/api/agents` every POLL_EVERY seconds instead, trying the subscription again between
polls. Attach opens an AgentWidget below the table (the same path as `%shard attach`); Kill stops
the agent's kernel and refreshes at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import ipywidgets

from shard_core.protocol import AgentAttachCommand, AgentInfo, CommandReply
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayError, GatewayLink
from shard_widgets import AgentDashboard
from shard_widgets.dashboard import AgentAction

if TYPE_CHECKING:
    from shard_kernel.remote.agent import RemoteAgent
    from shard_kernel.remote.loop import LoopThread

log = logging.getLogger("shard_kernel.remote")
POLL_EVERY = 2.0
CLOSED_CHECK = 1.0
"""Seconds between checks, while no event comes, that the widget is still shown."""
T = TypeVar("T")


class Agents(Protocol):
    """What a dashboard does with the notebook's gateway agents (the RemoteHub), declared
    here so the hub that makes dashboards is not imported by them."""

    @property
    def loop(self) -> LoopThread: ...

    def call(self, coro: Coroutine[Any, Any, T], within: float = ...) -> T: ...

    def attach(self, key: str) -> RemoteAgent: ...

    def kill(self, agent_id: str) -> AgentInfo: ...


class DashboardHost:
    def __init__(self, hub: Agents, link: GatewayLink, agents: list[AgentInfo]) -> None:
        self.hub = hub
        self.link = link
        self.widget = AgentDashboard(agents, on_action=self.act)
        self.view = ipywidgets.VBox([self.widget])
        self.error = ""
        self.source: Literal["events", "polling", "starting"] = "starting"
        """where the list comes from now: pushed events, or the polling fallback"""
        self.feed = EventFeed(link)
        self._stopped = False
        self._poller = hub.loop.submit(self._follow())

    @property
    def polling(self) -> bool:
        """The list is being kept current (by events or by polling)."""
        return not self._poller.done()

    def act(self, action: AgentAction) -> CommandReply:
        kind = "attach" if isinstance(action, AgentAttachCommand) else "kill"
        try:
            if isinstance(action, AgentAttachCommand):
                agent = self.hub.attach(action.agent_id)
                self.view.children = (*self.view.children, agent.widget(history=True))
                message = f"attached to {agent.name}"
            else:
                message = f"{self.hub.kill(action.agent_id).name} stopped"
            self.refresh()
        except GatewayError as exc:
            return CommandReply(command=kind, ok=False, message=str(exc))
        return CommandReply(command=kind, ok=True, message=message)

    def refresh(self) -> None:
        self._show(self.hub.call(self.link.agents()))

    def stop(self) -> None:
        self._stopped = True
        self._poller.cancel()

    def _closed(self) -> bool:
        return self._stopped or self.widget.comm is None or self.view.comm is None

    async def _follow(self) -> None:
        try:
            while not self._closed():
                try:
                    await self._read_events()
                except GatewayError as exc:  # no subscription: poll once, then try again
                    self.source = "polling"
                    self._note(exc)
                    await self._poll_once()
                    await asyncio.sleep(POLL_EVERY)
        finally:
            await self.feed.close()

    async def _read_events(self) -> None:
        await self.feed.connect()
        self.source = "events"
        while not self._closed():
            try:
                await asyncio.wait_for(self.feed.next_event(reconnect=False), CLOSED_CHECK)
            except TimeoutError:
                continue
            self._show(sorted(self.feed.agents.values(), key=lambda a: a.created))
            self.error = ""

    async def _poll_once(self) -> None:
        if self._closed():
            return
        try:
            self._show(await self.link.agents())
            self.error = ""
        except GatewayError as exc:  # keep the last list; say so once
            self._note(exc)

    def _note(self, exc: GatewayError) -> None:
        if str(exc) != self.error:
            log.warning("shard dashboard: %s", exc)
        self.error = str(exc)

    def _show(self, agents: list[AgentInfo]) -> None:
        fresh: list[Any] = [a.model_dump(mode="json") for a in agents]
        if fresh != self.widget.agents:
            self.widget.agents = fresh
