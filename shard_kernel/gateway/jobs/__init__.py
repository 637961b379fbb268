"""Subagent jobs the gateway owns: durable records (catalog.py), the coordinator that drives
child kernels (coordinator.py, channel.py), friendly aliases, reports, REST under
`/shard/api/jobs` (handlers.py), and a `job_updated` orchestrator event on `/shard/api/events`
for every change of a job's or its runs' states. Workflow runs are gateway jobs too
(workflows.py, REST under `/shard/api/workflows`, `workflow_updated` events): each step a job.

`install_jobs` adds them to a server that already has the Shard extension's registry;
`start_jobs` puts the server's URL and token into its own environment as SHARD_GATEWAY_URL and
SHARD_GATEWAY_TOKEN, which the local agent kernels it starts inherit, so their subagent tools
reach these routes over loopback; a remote gateway's kernels are sent them as
KERNEL_SHARD_GATEWAY_URL/TOKEN (`shard_kernel.gateway_reach`). The token is written to no
file; bash commands never see it (a `*_TOKEN` variable is removed from their environment) and
log lines redact it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from shard_core.engine.plurals import counted
from shard_core.protocol.orchestrator import JobUpdatedEvent
from shard_kernel.gateway.events_socket import WATCHER_KEY
from shard_kernel.gateway.jobs.acp_child import AcpBackend
from shard_kernel.gateway.jobs.catalog import JobCatalog
from shard_kernel.gateway.jobs.coordinator import Coordinator
from shard_kernel.gateway.jobs.handlers import COORDINATOR_KEY, JOB_ROUTES
from shard_kernel.gateway.jobs.records import JobRecord
from shard_kernel.gateway.jobs.workflow_handlers import WORKFLOW_ROUTES, WORKFLOWS_KEY
from shard_kernel.gateway.jobs.workflows import WorkflowHost, updated_event
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.workflows import RunRecord as WorkflowRun

URL_VARIABLE = "SHARD_GATEWAY_URL"
TOKEN_VARIABLE = "SHARD_GATEWAY_TOKEN"

__all__ = [
    "COORDINATOR_KEY",
    "JOB_ROUTES",
    "WORKFLOW_ROUTES",
    "Coordinator",
    "JobCatalog",
    "install_jobs",
    "start_jobs",
]


def install_jobs(
    serverapp: Any, registry: AgentRegistry, settings: dict[str, Any], *, trust_project: bool
) -> Coordinator:
    """The coordinator, its catalog read (a restart's cut-short jobs become interrupted), put in
    `settings`; `ShardGateway` serves its routes, starts it with the loop and closes it at stop."""
    home = registry.store.root.parent
    coordinator = Coordinator(
        registry,
        JobCatalog(home, serverapp.log),
        home,
        serverapp.log,
        trust_project=trust_project,
    )
    coordinator.register_backend("acp", AcpBackend(trust_project=trust_project))
    interrupted = coordinator.load()
    if interrupted:
        serverapp.log.info(
            "shard: %s interrupted by the restart", counted(len(interrupted), "subagent job")
        )
    settings[COORDINATOR_KEY] = coordinator
    host = WorkflowHost(coordinator, serverapp.log)
    settings[WORKFLOWS_KEY] = coordinator.workflows = host
    coordinator.on_close = host.close
    watcher = settings.get(WATCHER_KEY)
    if watcher is not None:
        journal = watcher.journal

        def publish(job: JobRecord) -> None:
            event = JobUpdatedEvent(
                job_id=job.id,
                parent_agent_id=job.parent_agent_id,
                state=job.state,
                job=job.summary(),
                ts=time.time(),
            )
            journal.publish(event)

        def publish_run(run: WorkflowRun) -> None:
            journal.publish(updated_event(run))

        coordinator.on_change = publish
        host.on_change = publish_run
        host.on_agent = watcher.poke
    return coordinator


def start_jobs(serverapp: Any, coordinator: Coordinator) -> None:
    """On the running loop: deliver pending reports, tell local kernels where the server is."""
    coordinator.start()
    if isinstance(coordinator.workflows, WorkflowHost):
        coordinator.workflows.start()
    _advertise(serverapp)


def _advertise(serverapp: Any) -> None:
    """Where this server listens and its token, for the agent kernels it starts locally (they
    inherit the server's environment); kernels a remote gateway hosts get the pair as
    KERNEL_SHARD_GATEWAY_URL/TOKEN in their create request (`shard_kernel.gateway_reach`)."""
    identity = getattr(serverapp, "identity_provider", None)
    token = getattr(identity, "token", None) or getattr(serverapp, "token", "") or ""
    os.environ[URL_VARIABLE] = serverapp.connection_url
    os.environ[TOKEN_VARIABLE] = token
