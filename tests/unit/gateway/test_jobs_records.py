"""Subagent job records: the durable catalog, restart reconciliation, aliases, launch checks and
the child's bounds (no processes: the gateway's pure parts)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from shard_core.engine.agent_definitions import AgentDefinition
from shard_core.protocol.orchestrator import PermissionConfig
from shard_kernel.gateway.jobs import aliases
from shard_kernel.gateway.jobs.catalog import JobCatalog
from shard_kernel.gateway.jobs.launch import LaunchError, child_manifest, parse_launch
from shard_kernel.gateway.jobs.records import JobRecord, RunRecord
from shard_kernel.gateway.jobs.reports import report_text
from shard_kernel.gateway.manifest import AgentManifest

LOG = logging.getLogger("test")


def _job(*states: str) -> JobRecord:
    job = JobRecord(parent_agent_id="agent-parent", strategy="parallel", state="running")
    for i, state in enumerate(states):
        run = RunRecord(index=i, task=f"t{i}", agent_id=f"agent-c{i}", alias=f"A{i}")
        run.state = state  # type: ignore[assignment]
        job.runs.append(run)
    return job


def test_a_saved_job_is_private_and_reads_back(tmp_path: Path) -> None:
    catalog = JobCatalog(tmp_path, LOG)
    job = _job("completed")
    job.state = "completed"
    catalog.save(job)
    path = tmp_path / "jobs" / job.id / "manifest.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "jobs").stat().st_mode & 0o777 == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["manifest.json"]  # no temp file left
    again = JobCatalog(tmp_path, LOG)
    assert again.load() == []
    assert again.get(job.id) == job


def test_a_restart_interrupts_unfinished_runs_with_the_reason(tmp_path: Path) -> None:
    catalog = JobCatalog(tmp_path, LOG)
    job = _job("completed", "running", "queued")
    catalog.save(job)
    done = _job("failed")
    done.state = "failed"
    catalog.save(done)
    [cut] = JobCatalog(tmp_path, LOG).load()
    assert cut.id == job.id
    assert (cut.state, cut.reason) == ("interrupted", "the gateway restarted while the job ran")
    assert [r.state for r in cut.runs] == ["completed", "interrupted", "interrupted"]
    assert cut.runs[1].reason == (
        "the gateway restarted while this run was running; relaunch it to run it again"
    )
    assert cut.runs[2].reason is not None
    assert "was queued" in cut.runs[2].reason
    # It was saved: a second restart finds nothing more to interrupt.
    assert JobCatalog(tmp_path, LOG).load() == []
    on_disk = json.loads((tmp_path / "jobs" / job.id / "manifest.json").read_text())
    assert on_disk["state"] == "interrupted"


def test_damaged_records_are_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "jobs" / "job-0123abcd").mkdir(parents=True)
    (tmp_path / "jobs" / "job-0123abcd" / "manifest.json").write_text("{not json")
    catalog = JobCatalog(tmp_path, LOG)
    with caplog.at_level(logging.WARNING):
        assert catalog.load() == []
    assert "skipping unreadable job record" in caplog.text
    with pytest.raises(ValueError, match="not a job id"):
        catalog.path("../etc")


def test_aliases_are_numbered_normalised_and_pinned() -> None:
    pool = aliases.pool(["Juniper"], ["Maple"])
    assert pool == ["Juniper"]  # a definition's names are the whole pool
    taken: list[str] = []
    for _ in range(3):
        taken.append(aliases.allocate(pool, taken))
    assert taken == ["Juniper", "Juniper 2", "Juniper 3"]
    # NFKC, trimming and case: a full-width "JUNIPER " is the same name.
    assert aliases.allocate(["Juniper"], ["\uff2a\uff35\uff2e\uff29\uff30\uff25\uff32 "]) == (
        "Juniper 2"
    )
    # Fewest uses first, the pool's order breaking ties.
    assert aliases.allocate(["Ada", "Grace"], ["Ada"]) == "Grace"
    assert aliases.allocate(["Ada", "Grace"], ["Ada", "Grace"]) == "Ada 2"
    # Unusable names are dropped; nothing usable falls through to the next source.
    assert aliases.pool(["", "a/b", "agent-12ab34cd", "x" * 41, "bad\u202ename"], ["Ok"]) == ["Ok"]
    assert aliases.pool([], []) == list(aliases.BUNDLED)


def test_launch_requests_are_checked_whole() -> None:
    ok = parse_launch({"parent": "agent-p", "strategy": "chain", "tasks": ["a", "b {previous}"]})
    assert ok.all_tasks() == ["a", "b {previous}"]
    bad = [
        ({"parent": "agent-p"}, "give `task`"),
        ({"parent": "agent-p", "task": "a", "tasks": ["b"]}, "single takes one task"),
        ({"parent": "agent-p", "strategy": "chain", "tasks": ["{previous}"]}, "first step"),
        ({"parent": "agent-p", "strategy": "parallel", "tasks": ["{previous}"]}, "a chain"),
        ({"parent": "agent-p", "task": "a", "deadline": 0}, "deadline"),
        ({"parent": "agent-p", "strategy": "parallel", "tasks": ["b"] * 17}, "tasks"),
        ({"parent": "agent-p", "task": "a", "extra": 1}, "extra"),
    ]
    for body, message in bad:
        with pytest.raises(LaunchError, match=message):
            parse_launch(body)


def _definition(**fields: object) -> AgentDefinition:
    base: dict[str, object] = {
        "name": "wide",
        "description": "d",
        "prompt": "",
        "path": Path("wide.md"),
        "layer": "user",
    }
    return AgentDefinition(**{**base, **fields})  # type: ignore[arg-type]


def test_a_child_never_gets_more_than_its_parent() -> None:
    parent = AgentManifest(
        id="agent-parent",
        name="p",
        cwd="/w",
        model="scripted/demo",
        mode="plan",
        permissions=PermissionConfig(allow=["Bash(pytest:*)", "Read"], deny=["Bash(rm:*)"]),
    )
    wide = _definition(
        allow=("Bash(pytest:*)", "Bash(curl:*)"),
        deny=("Bash(git push:*)",),
        tools=("read", "bash"),
        mode="build",
        model="scripted/other",
    )
    child = child_manifest(parent, wide, agent_id="agent-child", name="c", created=1.0)
    assert child.permissions.allow == ["Bash(pytest:*)"]
    assert child.permissions.deny[:3] == ["Bash(rm:*)", "Bash(git push:*)", "Bash(curl:*)"]
    assert child.agent_definition == "wide"
    assert {"Write", "Edit", "SubagentLaunch", "TaskStop"} <= set(child.permissions.deny)
    assert {"Read", "Bash"}.isdisjoint(child.permissions.deny)
    assert (child.mode, child.model) == ("plan", "scripted/other")  # plan parent, plan child
    plain = child_manifest(parent, None, agent_id="agent-c2", name="c2", created=1.0)
    assert plain.permissions == parent.permissions
    assert plain.agent_definition is None
    assert (plain.id, plain.model, plain.notebook) == ("agent-c2", "scripted/demo", None)


def test_the_report_is_bounded_and_points_at_the_session() -> None:
    job = _job("completed", "failed")
    job.state = "failed"
    job.runs[0].report = "x" * 20_000
    job.runs[0].report_truncated = True
    job.runs[0].session_id, job.runs[0].entry_id = "s-1", "e-1"
    job.runs[1].reason = "the deadline of 5s passed"
    text = report_text(job)
    assert text.startswith(f"[subagent job {job.id} (parallel, 2 runs) failed]")
    assert len(text) <= 16_000
    assert "[… cut; subagent_status has the rest]" in text
    short = _job("completed")
    short.runs[0].report = "done"
    short.runs[0].session_id, short.runs[0].entry_id = "s-1", "e-1"
    assert f"({short.strategy}, 1 run) " in report_text(short)
    assert report_text(short).endswith(
        f"## A0 (agent-c0, {short.runs[0].id}): completed\ndone\n"
        f"(all of it: agent agent-c0, session s-1, entry e-1; "
        f"subagent_status{{ids: [{short.runs[0].id}]}})"
    )
