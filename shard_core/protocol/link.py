"""AgentLink: the client side of the per-agent protocol as a state machine, without any I/O.

One `AgentLink` is one client of one agent (docs/PROTOCOL.md §2, §4, §6). It decides what to send
and what the stream means; a transport (in shard_kernel: the v1 WebSocket, a jupyter_client
kernel client) carries the messages and the caller owns the clock's timers. The link

- **attaches** (`attach()` queues an `open` whose data is the `attach` command; a new comm each
  time, the previous one closed), and pages the snapshot's history with `sync` until `has_more`
  is false;
- **correlates replies**: `command()` stamps an id and returns it; the reply with that
  `command_id` comes out of `receive_reply` as `Replied`;
- **fills gaps**: a live event with `seq > last + 1` holds the stream and sends
  `sync{since: last, until: seq - 1}`; the page's events come out first, then what was held, so
  the caller sees every event once, in seq order (a duplicate or an old seq is dropped). A gap
  that the sync answered is closed even when the page skips seqs (ephemeral events are not
  logged);
- **re-attaches** after a `restarted` event (the comm died with the old kernel process);
- **heartbeats** every `HEARTBEAT_INTERVAL_S` while attached, when asked to.

Use: feed every events-comm payload to `receive_event`, every payload on the client's own comm
to `receive_reply`; after each call (and after `attach`, `command`, `detach`,
`handle_timer`) send what `outgoing()` returns; call `handle_timer(now)` at `next_timer()`.
Outputs are `EventsReady` (events to apply, in order), `Attached` (an attach snapshot: its state
and pending asks; its events came out as `EventsReady` just before) and `Replied`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from shard_core.protocol.commands import (
    AttachCommand,
    ClientRole,
    Command,
    CommandReply,
    HeartbeatCommand,
    Reply,
    SnapshotReply,
    SyncCommand,
)
from shard_core.types import WireModel
from shard_core.types.base import DEFERRED

COMM_TARGET = "shard"
"""The target name of the comm a client opens to attach (its data is the `attach` command)."""
EVENTS_COMM_ID = "shard-events"
"""The comm id of the kernel's event messages on IOPub (no `comm_open` precedes them)."""
HEARTBEAT_INTERVAL_S = 20
"""How often a client heartbeats: well inside the agent's TTL."""
HEARTBEAT_TTL_S = 60
"""A client not heard from for this long stops counting (clients, responders)."""
SYNC_LIMIT_MAX = 5000
"""The most events one `sync` may ask for."""
SYNC_TIMEOUT_S = 10
"""How long the stream waits for a gap's `sync` page before going on without it."""

REPLIES: TypeAdapter[Reply] = TypeAdapter(Reply, config=DEFERRED)


class LinkConstants(WireModel):
    """The constants every client shares; exported to the schema (`link-constants.json`) so the
    TypeScript client reads the same values (`labextension/src/generated/link.ts`)."""

    comm_target: Literal["shard"] = COMM_TARGET
    events_comm_id: Literal["shard-events"] = EVENTS_COMM_ID
    heartbeat_interval_s: Literal[20] = HEARTBEAT_INTERVAL_S
    heartbeat_ttl_s: Literal[60] = HEARTBEAT_TTL_S
    sync_limit_max: Literal[5000] = SYNC_LIMIT_MAX
    sync_timeout_s: Literal[10] = SYNC_TIMEOUT_S


# ------------------------------------------------------------ what goes out


@dataclass(frozen=True)
class Outgoing:
    """One message for the transport: `open` a new comm on COMM_TARGET with `data` (closing
    the previous one first), send `data` on the open comm (`msg`), or `close` it."""

    kind: Literal["open", "msg", "close"]
    data: dict[str, Any] = field(default_factory=dict[str, Any])


# ------------------------------------------------------------ what comes out


@dataclass(frozen=True)
class EventsReady:
    """Events to apply, oldest first, each seq once (raw wire dicts)."""

    events: list[dict[str, Any]]


@dataclass(frozen=True)
class Attached:
    """An attach was answered: the agent's state and its pending asks."""

    snapshot: SnapshotReply


@dataclass(frozen=True)
class Replied:
    """The reply to a command sent with `command()` (or to `attach()`)."""

    command_id: str
    reply: CommandReply | SnapshotReply


Output = EventsReady | Attached | Replied


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class AgentLink:
    """One client of one agent; see the module docstring.

    `since`: the last seq already held (-1: none). `replay`: deliver the history the attach
    snapshot brings (False: only events after the snapshot). `backlog`: when paging a long
    history, skip to its newest `backlog` events (None: all). `heartbeat`: send heartbeats."""

    def __init__(
        self,
        client_id: str,
        *,
        role: ClientRole = "interactive",
        label: str | None = None,
        since: int = -1,
        replay: bool = True,
        backlog: int | None = None,
        heartbeat: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client_id = client_id
        self.role: ClientRole = role
        self.label = label
        self.last_seq = since
        """the highest seq delivered (or closed by a sync)"""
        self.replay = replay
        self.backlog = backlog
        self.heartbeat = heartbeat
        self.clock = clock
        self.attached = False
        """an attach was answered on the open comm"""
        self.snapshot: SnapshotReply | None = None
        """the latest attach snapshot"""
        self.gaps = 0
        """gaps seen (each answered by a sync)"""
        self._out: list[Outgoing] = []
        self._attaching: str | None = None
        self._replay_this = replay
        self._syncing: str | None = None
        self._sync_until: int | None = -1
        self._sync_sent = 0.0
        self._held: dict[int, dict[str, Any]] = {}
        self._held_replies: list[tuple[int, Replied]] = []
        """replies that came while a sync was awaited, each with the highest seq seen then"""
        self._next_beat: float | None = None

    # ------------------------------------------------------------ the caller's actions

    def attach(self, role: ClientRole | None = None, label: str | None = None) -> str:
        """Attach (again) on a new comm, from the last seq held; returns the command id."""
        self.role = role or self.role
        self.label = label if label is not None else self.label
        command_id = new_id()
        command = AttachCommand(
            id=command_id,
            client_id=self.client_id,
            since=self.last_seq,
            role=self.role,
            label=self.label,
        )
        if self.attached or self._attaching:
            self._out.append(Outgoing("close"))
        self._out.append(Outgoing("open", command.model_dump(mode="json", exclude_none=True)))
        self._attaching, self.attached = command_id, False
        self._syncing = None  # a page asked on the old comm will not come
        return command_id

    def command(self, command: Command | dict[str, Any]) -> str:
        """Send one command on the open comm; returns its id (the reply's `command_id`)."""
        data = (
            command.model_dump(mode="json", exclude_none=True)
            if isinstance(command, BaseModel)
            else dict(command)
        )
        command_id = str(data.get("id") or new_id())
        data["id"] = command_id
        self._out.append(Outgoing("msg", data))
        return command_id

    def catch_up(self) -> bool:
        """Ask for what followed the last seq held: a lost tail shows no gap until the next
        event, so a client about to end (a turn's cell answered) asks once; whether it did."""
        if not self.attached or self._syncing is not None or self._attaching is not None:
            return False
        self._sync(self.last_seq, None)
        return True

    @property
    def syncing(self) -> bool:
        """A gap's, a page's or a catch-up's `sync` awaits its answer."""
        return self._syncing is not None or self._attaching is not None

    def detach(self) -> None:
        """Close the comm (the agent stops counting this client)."""
        if self.attached or self._attaching:
            self._out.append(Outgoing("close"))
        self.lost()

    def lost(self) -> None:
        """The comm or connection is gone: nothing is pending on it any more."""
        self.attached, self._attaching, self._syncing = False, None, None
        self._next_beat = None

    def outgoing(self) -> list[Outgoing]:
        """What to send now, in order (and forget it)."""
        out, self._out = self._out, []
        return out

    def next_timer(self) -> float | None:
        """When (on `clock`) `handle_timer` should run next; None: nothing is timed."""
        times = [t for t in (self._next_beat,) if t is not None]
        if self._syncing is not None:
            times.append(self._sync_sent + SYNC_TIMEOUT_S)
        return min(times) if times else None

    def handle_timer(self, now: float | None = None) -> list[Output]:
        """A heartbeat when one is due; a gap's sync that timed out is given up (the held
        events go on, and the gap stays open)."""
        now = self.clock() if now is None else now
        if self._next_beat is not None and now >= self._next_beat:
            self.command(HeartbeatCommand(client_id=self.client_id))
            self._next_beat = now + HEARTBEAT_INTERVAL_S
        if self._syncing is not None and now >= self._sync_sent + SYNC_TIMEOUT_S:
            self._syncing = None
            if self._sync_until is not None:  # go on without it
                self.last_seq = max(self.last_seq, self._sync_until)
            return self._drain()
        return []

    # ------------------------------------------------------------ what the agent sent

    def receive_event(self, event: dict[str, Any]) -> list[Output]:
        """One event from the events comm (a batch unpacked into its events)."""
        seq = event.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= self.last_seq:
            return []
        if self._attaching is not None or self._syncing is not None:
            self._held.setdefault(seq, event)
            return []
        if self.attached and seq > self.last_seq + 1:
            self._held[seq] = event
            self.gaps += 1
            self._sync(self.last_seq, seq - 1)
            return []
        return self._deliver([event], live=True)

    def receive_reply(self, data: Any) -> list[Output]:
        """One message on this client's own comm: a `snapshot` or a `reply`."""
        try:
            reply = REPLIES.validate_python(data)
        except ValidationError:
            return []
        key = reply.command_id or ""
        if self._attaching is not None and key == self._attaching:
            return self._attach_answered(reply, data)
        if self._syncing is not None and key == self._syncing:
            return self._page_answered(reply, data)
        if not key:
            return []
        if self._syncing is not None or self._attaching is not None:  # keep the stream's order
            position = max(self.last_seq, max(self._held, default=-1))
            self._held_replies.append((position, Replied(key, reply)))
            return []
        return [Replied(key, reply)]

    # ------------------------------------------------------------ inside

    def _attach_answered(self, reply: CommandReply | SnapshotReply, data: Any) -> list[Output]:
        self._attaching = None
        out: list[Output] = []
        if not isinstance(reply, SnapshotReply):  # refused
            self._held.clear()
            held, self._held_replies = [r for _, r in self._held_replies], []
            return [Replied(reply.command_id or "", reply), *held]
        self.attached, self.snapshot = True, reply
        if self.heartbeat and self._next_beat is None:
            self._next_beat = self.clock() + HEARTBEAT_INTERVAL_S
        if self._replay_this:
            out += self._deliver(_events(data))
        if reply.has_more and reply.events and self._replay_this:
            after = reply.events[-1].seq
            if self.backlog is not None:
                after = max(after, reply.last_seq - self.backlog)
            self._sync(after, reply.last_seq)
        else:
            self.last_seq = max(self.last_seq, reply.last_seq)
        self._replay_this = True  # a re-attach catches up whatever the link was told
        out.append(Attached(reply))
        out.append(Replied(reply.command_id or "", reply))
        return out + self._drain()

    def _page_answered(self, reply: CommandReply | SnapshotReply, data: Any) -> list[Output]:
        self._syncing = None
        out: list[Output] = []
        until = self._sync_until
        if isinstance(reply, SnapshotReply):
            out += self._deliver([e for e in _events(data) if until is None or e["seq"] <= until])
            if reply.has_more and reply.events and (until is None or reply.events[-1].seq < until):
                self._sync(reply.events[-1].seq, until)
                return out
        if until is not None:
            self.last_seq = max(self.last_seq, until)  # answered: the gap is closed
        return out + self._drain()

    def _drain(self) -> list[Output]:
        """Release what was held, in order — events by seq, each reply after the events that
        came before it — until the next gap (which gets its own sync)."""
        out: list[Output] = []
        ready: list[dict[str, Any]] = []

        def release(before: int | None) -> None:
            nonlocal ready
            replies = [r for p, r in self._held_replies if before is None or p < before]
            if not replies:
                return
            if ready:
                out.extend(self._deliver(ready, live=True))
                ready = []
            self._held_replies = self._held_replies[len(replies) :]
            out.extend(replies)

        for seq in sorted(self._held):
            if self._syncing is not None or self._attaching is not None:
                break
            event = self._held.pop(seq)
            last = ready[-1]["seq"] if ready else self.last_seq
            if seq <= last:
                continue
            if self.attached and seq > last + 1:
                self._held[seq] = event
                self.gaps += 1
                self._sync(last, seq - 1)
                break
            release(seq)
            ready.append(event)
        if ready:
            out.extend(self._deliver(ready, live=True))
        if self._syncing is None and self._attaching is None:
            release(None)
        return out

    def _deliver(self, events: list[dict[str, Any]], *, live: bool = False) -> list[Output]:
        fresh: list[dict[str, Any]] = []
        for event in sorted(events, key=lambda e: e["seq"]):
            if event["seq"] > self.last_seq:
                self.last_seq = event["seq"]
                fresh.append(event)
        out: list[Output] = [EventsReady(fresh)] if fresh else []
        for event in fresh if live else ():  # a new kernel process: our comm died with it
            if event.get("type") == "restarted" and self.attached:
                self.attach()
                break
        return out

    def _sync(self, since: int, until: int | None) -> None:
        command_id = new_id()
        command = SyncCommand(id=command_id, since=since, until=until, limit=SYNC_LIMIT_MAX)
        self._out.append(Outgoing("msg", command.model_dump(mode="json", exclude_none=True)))
        self._syncing, self._sync_until, self._sync_sent = command_id, until, self.clock()


def _events(data: Any) -> list[dict[str, Any]]:
    """The raw events of a snapshot payload (as the wire carried them)."""
    payload: dict[str, Any] = data if isinstance(data, dict) else {}  # pyright: ignore[reportUnknownVariableType]
    events: Any = payload.get("events")
    items: list[Any] = events if isinstance(events, list) else []  # pyright: ignore[reportUnknownVariableType]
    return [e for e in items if isinstance(e, dict) and isinstance(e.get("seq"), int)]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
