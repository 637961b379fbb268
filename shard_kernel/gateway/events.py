"""Orchestrator events: the gateway's numbered stream (`EventJournal`) and where it comes from
(`AgentWatcher`).

Every event gets the next `seq` of this gateway process; the journal keeps the newest KEEP of
them, so a subscriber that lost its connection resumes with `since` and misses nothing — or, when
the events after `since` are gone (or it names another process's `epoch`), is told so and gets
the whole list again (`agents_snapshot` with `gap: true`). Events are serialized once, whatever
the number of subscribers.

The watcher keeps the last row (`AgentInfo`) of every agent and publishes what changed: a kernel
that started (`agent_spawned`), one that is gone (`agent_exited`), any other change of the row
(`agent_status_changed`: status, runtime state, mode, clients, usage, …). The registry pokes it on
every start and kill, so those are published at once; the rest is noticed by a cheap tick (the
size of each running agent's `events.jsonl` — the kernel logs every status there, local or
remote — and whether its kernel is still known), and a slower reconcile that asks the kernel
manager (a remote gateway too) which kernels still live.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, get_args

from tornado.ioloop import IOLoop, PeriodicCallback

from shard_core.protocol.events import AgentStatus
from shard_core.protocol.orchestrator import (
    AgentExitedEvent,
    AgentInfo,
    AgentSpawnedEvent,
    AgentsSnapshotEvent,
    AgentStatusChangedEvent,
)
from shard_core.types import WireModel

KEEP = 4096
"""Events kept for resumption (a few KiB each at most; ~minutes of a busy gateway)."""
TICK = 0.2
"""Seconds between looks at the running agents' event logs (one stat each)."""
RECONCILE = 2.0
STATUS_LINE = b'"type":"status"'
"""How a logged status event's line reads (compact JSON); other lines are not decoded."""
"""Seconds between asking the kernel manager which kernels still live."""
STATUSES = frozenset(get_args(AgentStatus))
log = logging.getLogger(__name__)

Subscriber = Callable[[int, str], None]
"""Called with (seq, the event as JSON text) for each event published."""


@dataclass(frozen=True)
class Resume:
    """What a subscriber gets on connecting: the events after its `since`, or a gap."""

    events: list[tuple[int, str]]
    gap: bool


class EventJournal:
    def __init__(self, keep: int = KEEP) -> None:
        self.epoch = uuid.uuid4().hex[:12]
        self.seq = 0
        self._ring: deque[tuple[int, str]] = deque(maxlen=keep)
        self._subscribers: list[Subscriber] = []

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def publish(self, event: WireModel) -> int:
        """Number the event, keep it, hand it to every subscriber; returns its seq."""
        self.seq += 1
        text = event.model_copy(update={"seq": self.seq}).model_dump_json()
        self._ring.append((self.seq, text))
        for subscriber in list(self._subscribers):
            try:
                subscriber(self.seq, text)
            except Exception:  # one broken subscriber never keeps the event from the others
                log.exception("shard: an orchestrator event subscriber failed")
        return self.seq

    def resume(self, epoch: str | None, since: int | None) -> Resume:
        """The kept events after `since` of this `epoch`; a gap when some of them are gone."""
        if since is None:
            return Resume([], gap=False)
        if epoch != self.epoch or since > self.seq:
            return Resume([], gap=True)
        oldest = self._ring[0][0] if self._ring else self.seq + 1
        if since + 1 < oldest:
            return Resume([], gap=True)
        return Resume([item for item in self._ring if item[0] > since], gap=False)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe


class AgentWatcher:
    """The last published row of every agent, and the events that bring subscribers up to date."""

    def __init__(self, registry: Any, journal: EventJournal) -> None:
        self.registry = registry
        self.journal = journal
        self.rows: dict[str, AgentInfo] = {}
        self._prints: dict[str, tuple[Any, ...]] = {}
        self._read: dict[str, int] = {}
        """the last seq of each agent's event log the watcher has read"""
        self._poked: set[str] = set()
        self._last_reconcile = 0.0
        self._checking: asyncio.Task[None] | None = None
        self._timer: PeriodicCallback | None = None

    def start(self) -> None:
        """Learn every agent's row quietly, then watch (on the server's IOLoop)."""
        self._checking = asyncio.ensure_future(self._check(None, publish=False))
        self._timer = PeriodicCallback(self._tick, TICK * 1000)
        self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def snapshot(self, gap: bool) -> AgentsSnapshotEvent:
        agents = sorted(self.rows.values(), key=lambda a: a.created)
        return AgentsSnapshotEvent(
            epoch=self.journal.epoch, seq=self.journal.seq, agents=agents, gap=gap, ts=time.time()
        )

    def poke(self, agent_id: str) -> None:
        """The registry changed this agent: look at it on the next loop iteration."""
        self._poked.add(agent_id)
        IOLoop.current().add_callback(self._tick)

    def _tick(self) -> None:
        if self._checking is not None and not self._checking.done():
            return  # the running check publishes; pokes that came meanwhile wait for the next
        now = time.monotonic()
        wanted: set[str] | None
        if now - self._last_reconcile >= RECONCILE:
            self._last_reconcile = now
            wanted = None
        else:
            wanted = self._poked | set(self._changed())
            if not wanted:
                return
        self._poked = set()
        self._checking = asyncio.ensure_future(self._check(wanted, publish=True))

    def _changed(self) -> Iterable[str]:
        """Agents whose fingerprint moved: kernel known or gone, starting, failed, log size."""
        registry = self.registry
        for agent_id in list(registry.manifests):
            kernel_id = registry.kernel_id(agent_id)
            starting = agent_id in registry._starting  # pyright: ignore[reportPrivateUsage]
            if kernel_id is None and not starting and agent_id not in self._prints:
                continue
            try:
                size = registry.history(agent_id).path.stat().st_size
            except OSError:
                size = -1
            fingerprint = (kernel_id, starting, size)
            if self._prints.get(agent_id) != fingerprint:
                self._prints[agent_id] = fingerprint
                yield agent_id
            if kernel_id is None and not starting:
                self._prints.pop(agent_id, None)  # stopped: nothing to watch until it starts

    async def _check(self, agent_ids: set[str] | None, *, publish: bool) -> None:
        registry = self.registry
        try:
            if agent_ids is None:
                infos = await registry.infos()
            else:
                known = [a for a in agent_ids if a in registry.manifests]
                infos = await registry.infos(known) if known else []
        except Exception:  # the kernel manager or a remote gateway failed: try again later
            log.warning("shard: could not read the agents' state for events", exc_info=True)
            return
        for info in infos:
            for row in self._passing_states(info, publish=publish):
                self._update(row, publish=publish)
            self._update(info, publish=publish)

    def _passing_states(self, info: AgentInfo, *, publish: bool) -> list[AgentInfo]:
        """The rows the agent went through since the last look: every status its kernel logged
        (a short turn goes busy and idle again between two ticks), the newest one excepted —
        `info` already shows it."""
        try:
            history = self.registry.history(info.id)
            since = self._read.get(info.id, -1 if publish else history.last_seq)
            statuses = history.matching(since, STATUS_LINE) if publish else []
            self._read[info.id] = history.last_seq
        except (OSError, ValueError):
            return []
        if info.runtime_state != "running":  # they all happened while it ran
            passed, info = statuses, info.model_copy(update={"runtime_state": "running"})
        else:
            passed = statuses[:-1]
        return [
            info.model_copy(update={"status": s["status"], "mode": s.get("mode") or info.mode})
            for s in passed
            if s.get("type") == "status" and s.get("status") in STATUSES
        ]

    def _update(self, info: AgentInfo, *, publish: bool) -> None:
        old = self.rows.get(info.id)
        self.rows[info.id] = info
        if not publish or old == info:
            return
        for event in changes(old, info):
            self.journal.publish(event)


def changes(
    old: AgentInfo | None, new: AgentInfo
) -> list[AgentSpawnedEvent | AgentExitedEvent | AgentStatusChangedEvent]:
    """The events that turn row `old` (None: unknown so far) into `new`."""
    now = time.time()
    was_running = old is not None and old.runtime_state == "running"
    if new.runtime_state == "running" and not was_running:
        return [AgentSpawnedEvent(agent=new, ts=now)]
    if was_running and new.runtime_state in ("stopped", "failed"):
        return [AgentExitedEvent(agent_id=new.id, agent=new, ts=now)]
    return [
        AgentStatusChangedEvent(
            agent_id=new.id,
            status=new.status,
            runtime_state=new.runtime_state,
            agent=new,
            ts=now,
        )
    ]
