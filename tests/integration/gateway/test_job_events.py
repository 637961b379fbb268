"""Subagent jobs on the orchestrator events: a subscriber of `/shard/api/events` sees a scripted
child's job go queued → running → completed, each of its run's states on the way, as the job
list (`GET /shard/api/jobs`) shows it — never the task or report text."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from shard_core.protocol.orchestrator import AgentsSnapshotEvent, JobUpdatedEvent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.link import GatewayLink
from tests.integration.gateway.conftest import TOKEN, Servers, api, body, write_script
from tests.integration.gateway.test_subagents import _create, _definition, _settled

TASK = "Say the secret word pumpernickel."
REPORT = "The word is quokka."


async def _job_events(feed: EventFeed, job_id: str, within: float = 120.0) -> list[Any]:
    """The job's events up to the one that shows it ended and delivered to its parent."""
    seen: list[JobUpdatedEvent] = []

    async def collect() -> None:
        while True:
            event = await feed.next_event()
            if isinstance(event, JobUpdatedEvent) and event.job_id == job_id:
                seen.append(event)
                if event.state == "completed" and event.job["delivered"]:
                    return

    await asyncio.wait_for(collect(), within)
    return seen


async def test_a_subscriber_sees_a_job_go_from_queued_to_completed(
    servers: Servers, workspace: Path
) -> None:
    server = servers.start()
    feed = EventFeed(GatewayLink(server.url, TOKEN))
    await feed.connect()
    assert isinstance(await feed.next_event(), AgentsSnapshotEvent)
    _definition(server.env, "sayer", write_script(workspace.parent, [{"text": REPORT}], "c.json"))
    parent = await _create(server, workspace, write_script(workspace.parent, [{"text": "hi"}]))

    launched = await api(
        server, "POST", "/shard/api/jobs", {"parent": parent["id"], "task": TASK, "agent": "sayer"}
    )
    assert launched.code == 201, launched.body
    job_id = body(launched)["id"]
    events = await _job_events(feed, job_id)

    assert [e.seq for e in events] == sorted({e.seq for e in events})  # numbered, in order
    assert {e.parent_agent_id for e in events} == {parent["id"]}
    job_states = [e.state for e in events]
    assert job_states[0] == "queued"
    assert "running" in job_states
    assert job_states.index("running") < job_states.index("completed")
    run_states = [e.job["runs"][0]["state"] for e in events]
    for state in ("queued", "starting", "running", "completed"):
        assert state in run_states, run_states
    assert run_states.index("starting") < run_states.index("running")
    assert run_states.index("running") < run_states.index("completed")
    for event in events:  # the parent's private texts stay out of the broadcast
        text = event.model_dump_json()
        assert "pumpernickel" not in text
        assert "quokka" not in text

    [listed] = await _settled(server, parent["id"], 1, delivered=True)
    assert events[-1].job == listed  # the job as the REST list shows it
    await feed.close()
