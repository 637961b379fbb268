"""EventJournal and `changes`: numbering, bounded resumption with gaps, and which event a row
change becomes (no server: the journal and the diff are plain objects)."""

from __future__ import annotations

import json

from shard_core.protocol.orchestrator import AgentInfo, AgentStatusChangedEvent
from shard_kernel.gateway.events import EventJournal, changes


def row(**update: object) -> AgentInfo:
    base = AgentInfo(
        id="agent-a1",
        name="a",
        cwd="/w",
        model="scripted/demo",
        mode="build",
        status="idle",
        runtime_state="running",
        created=1.0,
    )
    return base.model_copy(update=update)


def status(n: int) -> AgentStatusChangedEvent:
    return AgentStatusChangedEvent(
        agent_id=f"agent-{n}", status="idle", runtime_state="running", ts=float(n)
    )


def test_events_are_numbered_kept_and_fanned_out_once_serialized() -> None:
    journal = EventJournal(keep=3)
    got: list[tuple[int, str]] = []
    unsubscribe = journal.subscribe(lambda seq, text: got.append((seq, text)))
    assert [journal.publish(status(n)) for n in range(5)] == [1, 2, 3, 4, 5]
    assert [seq for seq, _ in got] == [1, 2, 3, 4, 5]
    assert json.loads(got[-1][1])["seq"] == 5
    unsubscribe()
    journal.publish(status(6))
    assert len(got) == 5
    assert journal.subscribers == 0


def test_resume_serves_what_is_kept_and_reports_a_gap_otherwise() -> None:
    journal = EventJournal(keep=3)
    for n in range(5):
        journal.publish(status(n))  # kept: 3, 4, 5
    epoch = journal.epoch
    assert [s for s, _ in journal.resume(epoch, 2).events] == [3, 4, 5]
    assert journal.resume(epoch, 5).events == []
    assert not journal.resume(epoch, 5).gap
    assert journal.resume(epoch, 1).gap  # seq 2 is gone
    assert journal.resume(epoch, 6).gap  # from the future: another process's numbers
    assert journal.resume("ffffffffffff", 4).gap
    assert journal.resume(None, None).gap is False


def test_a_failing_subscriber_does_not_starve_the_others() -> None:
    journal = EventJournal()
    got: list[int] = []

    def broken(seq: int, text: str) -> None:
        raise RuntimeError("closed")

    journal.subscribe(broken)
    journal.subscribe(lambda seq, text: got.append(seq))
    journal.publish(status(1))
    assert got == [1]


def test_row_changes_become_spawned_exited_or_status_changed() -> None:
    assert [e.type for e in changes(None, row())] == ["agent_spawned"]
    assert [e.type for e in changes(row(runtime_state="stopped"), row())] == ["agent_spawned"]
    stopped = row(runtime_state="stopped", kernel_id=None)
    assert [e.type for e in changes(row(), stopped)] == ["agent_exited"]
    assert [e.type for e in changes(row(), row(runtime_state="failed"))] == ["agent_exited"]
    (busy,) = changes(row(), row(status="streaming"))
    assert isinstance(busy, AgentStatusChangedEvent)
    assert (busy.status, busy.runtime_state, busy.agent) == (
        "streaming",
        "running",
        row(status="streaming"),
    )
    assert [e.type for e in changes(None, row(runtime_state="starting"))] == [
        "agent_status_changed"
    ]
