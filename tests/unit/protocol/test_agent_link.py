"""AgentLink, the sans-IO client state machine: attach and paging, reply correlation, gap → sync,
heartbeats, re-attach after a restart; and, for arbitrary drop/duplicate/reorder patterns, every
logged event comes out once, in seq order."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.protocol.commands import CommandReply
from shard_core.protocol.link import (
    COMM_TARGET,
    EVENTS_COMM_ID,
    HEARTBEAT_INTERVAL_S,
    SYNC_TIMEOUT_S,
    AgentLink,
    Attached,
    EventsReady,
    LinkConstants,
    Output,
    Replied,
)

EPHEMERAL = {"message_delta", "tool_update"}


def event(seq: int, kind: str = "turn_start") -> dict[str, Any]:
    base: dict[str, Any] = {"type": kind, "agent_id": "agent-x", "seq": seq, "ts": 1.0}
    if kind == "turn_start":
        base |= {"turn_id": "t1", "prompt": f"p{seq}"}
    elif kind == "message_delta":
        base |= {"turn_id": "t1", "channel": "text", "delta": f"d{seq}"}
    elif kind == "restarted":
        base |= {"lost": [], "entries": 0}
    return base


class Agent:
    """What the kernel answers (its log holds every non-ephemeral event)."""

    def __init__(self, events: list[dict[str, Any]], page: int = 500) -> None:
        self.events = events
        self.page = page
        self.commands: list[dict[str, Any]] = []

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else -1

    def snapshot(self, command_id: str, since: int, until: int | None, limit: int) -> Any:
        logged = [e for e in self.events if e["type"] not in EPHEMERAL and e["seq"] > since]
        logged = [e for e in logged if until is None or e["seq"] <= until]
        return {
            "type": "snapshot",
            "command_id": command_id,
            "agent_id": "agent-x",
            "status": "idle",
            "mode": "build",
            "model": "scripted/x",
            "last_seq": self.last_seq,
            "events": logged[:limit],
            "has_more": len(logged) > limit,
        }

    def answer(self, link: AgentLink) -> list[Output]:
        """Answer everything the link sent; the outputs of feeding the answers back."""
        out: list[Output] = []
        while sent := link.outgoing():
            for message in sent:
                self.commands.append({"kind": message.kind, **message.data})
                data = message.data
                if message.kind == "close":
                    continue
                kind = data.get("type")
                if kind == "attach":
                    reply = self.snapshot(data["id"], data["since"], None, self.page)
                elif kind == "sync":
                    limit = min(data["limit"], self.page)
                    reply = self.snapshot(data["id"], data["since"], data.get("until"), limit)
                elif kind == "heartbeat":
                    continue
                else:
                    reply = {"type": "reply", "command_id": data["id"], "command": kind, "ok": True}
                out += link.receive_reply(reply)
        return out


def delivered(outputs: list[Output]) -> list[dict[str, Any]]:
    return [e for o in outputs if isinstance(o, EventsReady) for e in o.events]


def test_the_constants_are_what_the_kernel_and_the_schema_use() -> None:
    assert (COMM_TARGET, EVENTS_COMM_ID) == ("shard", "shard-events")
    assert LinkConstants().model_dump() == {
        "comm_target": "shard",
        "events_comm_id": "shard-events",
        "heartbeat_interval_s": 20,
        "heartbeat_ttl_s": 60,
        "sync_limit_max": 5000,
        "sync_timeout_s": 10,
    }


def test_attach_pages_the_whole_history_then_goes_live() -> None:
    agent = Agent([event(i) for i in range(12)], page=5)
    link = AgentLink("c1")
    link.attach()
    out = agent.answer(link)
    assert [e["seq"] for e in delivered(out)] == list(range(12))
    assert any(isinstance(o, Attached) for o in out)
    assert [c["type"] for c in agent.commands if c["kind"] != "close"] == ["attach", "sync", "sync"]
    assert link.attached
    assert link.last_seq == 11
    assert [e["seq"] for e in delivered(link.receive_event(event(12)))] == [12]


def test_backlog_skips_to_the_newest_events() -> None:
    agent = Agent([event(i) for i in range(100)], page=10)
    link = AgentLink("c1", backlog=20)
    link.attach()
    seqs = [e["seq"] for e in delivered(agent.answer(link))]
    assert seqs == list(range(10)) + list(range(80, 100))


def test_without_replay_only_what_follows_the_snapshot_comes_out() -> None:
    agent = Agent([event(i) for i in range(5)])
    link = AgentLink("c1", replay=False)
    link.attach()
    assert link.receive_event(event(4)) == []  # held until the snapshot: already in it
    assert delivered(agent.answer(link)) == []
    assert [e["seq"] for e in delivered(link.receive_event(event(5)))] == [5]


def test_a_gap_is_synced_and_the_held_events_follow_in_order() -> None:
    agent = Agent([event(i) for i in range(3)])
    link = AgentLink("c1")
    link.attach()
    agent.answer(link)
    agent.events += [event(3), event(4), event(5)]
    assert link.receive_event(event(5)) == []  # 3 and 4 never came
    assert link.receive_event(event(5)) == []  # a duplicate while syncing
    out = agent.answer(link)
    assert next(c for c in agent.commands if c.get("type") == "sync")["since"] == 2
    assert next(c for c in agent.commands if c.get("type") == "sync")["until"] == 4
    assert [e["seq"] for e in delivered(out)] == [3, 4, 5]
    assert link.gaps == 1
    assert link.last_seq == 5


def test_a_gap_of_ephemeral_events_is_closed_by_its_sync() -> None:
    agent = Agent([event(0), event(1, "message_delta"), event(2, "message_delta"), event(3)])
    link = AgentLink("c1", since=0)
    link.attach()
    agent.events = agent.events[:1]
    agent.answer(link)
    agent.events += [event(1, "message_delta"), event(2, "message_delta"), event(3)]
    link.receive_event(event(3))
    assert [e["seq"] for e in delivered(agent.answer(link))] == [3]
    assert [e["seq"] for e in delivered(link.receive_event(event(4)))] == [4]


def test_replies_are_correlated_by_command_id() -> None:
    agent = Agent([])
    link = AgentLink("c1")
    link.attach()
    agent.answer(link)
    first = link.command({"type": "abort"})
    second = link.command({"type": "set_mode", "mode": "plan"})
    out = agent.answer(link)
    replies = [(o.command_id, o.reply) for o in out if isinstance(o, Replied)]
    assert [(i, r.command) for i, r in replies if isinstance(r, CommandReply)] == [
        (first, "abort"),
        (second, "set_mode"),
    ]


def test_a_refused_attach_is_a_reply() -> None:
    link = AgentLink("c1")
    attach = link.attach()
    link.outgoing()
    refusal = {"type": "reply", "command_id": attach, "command": "attach", "ok": False}
    out = link.receive_reply({**refusal, "message": "agent not ready"})
    replies = [(o.command_id, o.reply) for o in out if isinstance(o, Replied)]
    assert [(i, r.ok) for i, r in replies if isinstance(r, CommandReply)] == [(attach, False)]
    assert not link.attached


def test_heartbeats_while_attached() -> None:
    now = [100.0]
    link = AgentLink("c1", clock=lambda: now[0])
    link.attach()
    Agent([]).answer(link)
    assert link.next_timer() == 100.0 + HEARTBEAT_INTERVAL_S
    now[0] += HEARTBEAT_INTERVAL_S
    link.handle_timer()
    beats = [m.data for m in link.outgoing()]
    assert [(b["type"], b["client_id"]) for b in beats] == [("heartbeat", "c1")]
    link.detach()
    assert link.next_timer() is None
    quiet = AgentLink("c2", heartbeat=False, clock=lambda: now[0])
    quiet.attach()
    Agent([]).answer(quiet)
    assert quiet.next_timer() is None


def test_an_unanswered_sync_is_given_up_and_the_stream_goes_on() -> None:
    now = [0.0]
    link = AgentLink("c1", heartbeat=False, clock=lambda: now[0])
    link.attach()
    Agent([event(0)]).answer(link)
    link.receive_event(event(3))
    link.outgoing()  # the sync, lost
    assert link.handle_timer() == []
    now[0] = SYNC_TIMEOUT_S
    assert [e["seq"] for e in delivered(link.handle_timer())] == [3]
    assert link.outgoing() == []  # no new sync for the same gap


def test_a_restart_reattaches_from_the_last_seq() -> None:
    agent = Agent([event(0)])
    link = AgentLink("c1")
    link.attach()
    agent.answer(link)
    agent.events.append(event(1, "restarted"))
    link.receive_event(event(1, "restarted"))
    sent = link.outgoing()
    assert [m.kind for m in sent] == ["close", "open"]
    assert sent[1].data["since"] == 1


def test_the_open_message_is_an_attach_command() -> None:
    link = AgentLink("c1", role="observer", label="me", since=7)
    link.attach()
    [message] = link.outgoing()
    assert message.kind == "open"
    assert {k: message.data[k] for k in ("type", "client_id", "role", "since", "label")} == {
        "type": "attach",
        "client_id": "c1",
        "role": "observer",
        "since": 7,
        "label": "me",
    }


KINDS = st.sampled_from(["turn_start", "turn_start", "message_delta"])


@settings(max_examples=300, deadline=None)
@given(
    kinds=st.lists(KINDS, min_size=1, max_size=40),
    history=st.integers(min_value=0, max_value=40),
    fate=st.lists(st.sampled_from(["ok", "ok", "ok", "drop", "dup", "swap"]), max_size=40),
    page=st.integers(min_value=1, max_value=8),
)
def test_any_drop_dup_reorder_pattern_yields_each_logged_event_once_in_order(
    kinds: list[str], history: int, fate: list[str], page: int
) -> None:
    events = [event(i, k) for i, k in enumerate(kinds)]
    history = min(history, len(events))
    agent = Agent(events[:history], page=page)
    link = AgentLink("c1", heartbeat=False)
    link.attach()
    out = agent.answer(link)
    # the rest happens live, through a lossy transit; the agent logs it as it goes
    live = events[history:]
    transit: list[dict[str, Any]] = []
    for i, e in enumerate(live):
        f = fate[i] if i < len(fate) else "ok"
        if f == "ok":
            transit.append(e)
        elif f == "dup":
            transit += [e, e]
        elif f == "swap" and transit:
            transit.insert(len(transit) - 1, e)
        elif f == "swap":
            transit.append(e)
    for e in transit:
        agent.events = [x for x in events if x["seq"] <= max(e["seq"], agent.last_seq)]
        out += link.receive_event(e)
        out += agent.answer(link)
    agent.events = events
    out += link.receive_event(event(len(events)))  # the next event shows any gap at the end
    agent.events = [*events, event(len(events))]
    out += agent.answer(link)
    seqs = [e["seq"] for e in delivered(out)]
    assert seqs == sorted(set(seqs)), "each seq once, in order"
    logged = [e["seq"] for e in events if e["type"] not in EPHEMERAL]
    assert set(logged) <= set(seqs), "every logged event arrives"
    assert seqs[-1] == len(events)


def test_catch_up_fetches_a_lost_tail() -> None:
    agent = Agent([event(0)])
    link = AgentLink("c1")
    link.attach()
    agent.answer(link)
    agent.events += [event(1), event(2, "message_delta"), event(3)]
    assert delivered(link.receive_event(event(1))) != []
    # 2 and 3 were lost: nothing shows it until the client asks
    assert link.catch_up()
    assert link.syncing
    assert [e["seq"] for e in delivered(agent.answer(link))] == [3]
    assert not link.syncing
    assert link.last_seq == 3


def test_a_reply_during_a_sync_keeps_its_place_in_the_stream() -> None:
    agent = Agent([event(0)])
    link = AgentLink("c1")
    link.attach()
    agent.answer(link)
    asked = link.command({"type": "abort"})
    link.outgoing()  # the abort: answered below, after event 2 came and before event 3
    agent.events += [event(1), event(2), event(3)]
    assert link.receive_event(event(2)) == []  # 1 was lost: a sync is on its way
    reply = {"type": "reply", "command_id": asked, "command": "abort", "ok": True}
    assert link.receive_reply(reply) == []
    assert link.receive_event(event(3)) == []
    out = agent.answer(link)
    order = [o.events[0]["seq"] if isinstance(o, EventsReady) else o for o in out]
    assert [o if isinstance(o, int) else "reply" for o in order] == [1, 2, "reply", 3]
