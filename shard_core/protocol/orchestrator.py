"""Orchestrator messages: the registry of agents the gateway keeps (list, create, kill, …)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from shard_core.protocol.events import AgentStatus, ClientCounts
from shard_core.types import Usage, WireModel

RuntimeState = Literal["stopped", "starting", "running", "failed"]
HeadlessPolicy = Literal["deny", "allow_if_rule_matches", "queue"]
JobState = Literal["queued", "running", "completed", "failed", "stopped", "interrupted"]


class PermissionConfig(WireModel):
    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)


class AgentTerminal(WireModel):
    """A terminal of the agent's that is a jupyter_server terminal (a person can open it)."""

    name: str = Field(
        description="the server terminal's name (`/api/terminals`, Lab's terminal:open)"
    )
    label: str = Field(description="what the agent calls it (terminal_open's name, else its id)")
    command: str = Field(description="what it runs (the shell when it was opened without one)")


class AgentInfo(WireModel):
    id: str = Field(pattern=r"^agent-[A-Za-z0-9_-]+$")
    name: str
    cwd: str
    model: str
    mode: str
    status: AgentStatus
    runtime_state: RuntimeState
    clients: int = Field(default=0, ge=0, description="Shard clients attached (every role)")
    clients_by_role: ClientCounts = Field(default_factory=ClientCounts)
    usage: Usage = Field(default_factory=Usage)
    created: float
    kernel_id: str | None = None
    headless_policy: HeadlessPolicy = "deny"
    error: str | None = Field(
        default=None, description="why runtime_state is failed (no traceback, no secrets)"
    )
    notebook: str | None = Field(
        default=None,
        description="the notebook this agent's kernel was started for (a path under the "
        "server's root), when the server adopted a notebook's `shard` kernel",
    )
    title: str | None = Field(default=None, description="the agent's session title, if any")
    diagnostics: list[str] = Field(
        default_factory=list[str],
        description="what the agent skipped or could not load at start, from its last status",
    )
    agent_definition: str | None = Field(
        default=None, description="the agent definition (agents/NAME.md) it was built from"
    )
    parent_agent_id: str | None = Field(
        default=None, description="the agent that launched this one as a subagent, if any"
    )
    alias: str | None = Field(
        default=None, description="a subagent's friendly name among its parent's children"
    )
    terminals: list[AgentTerminal] = Field(
        default_factory=list[AgentTerminal],
        description="its open terminals that are this server's (listed while it runs)",
    )


class AgentListCommand(WireModel):
    type: Literal["agent_list"] = "agent_list"


class AgentCreateCommand(WireModel):
    type: Literal["agent_create"] = "agent_create"
    cwd: str
    model: str | None = None
    mode: str = "build"
    name: str | None = None
    permissions: PermissionConfig = Field(default_factory=PermissionConfig)
    headless_policy: HeadlessPolicy = "deny"
    permission_timeout: float = Field(default=60.0, gt=0, le=86_400, allow_inf_nan=False)
    skills: list[str] = Field(
        default_factory=list, description="only these Agent Skills (empty: every one found)"
    )
    agent: str | None = Field(
        default=None,
        description="build the agent from this agent definition (agents/NAME.md): its model "
        "and mode are the defaults, its tools, skills and rules apply",
    )
    goal: str | None = Field(
        default=None, description="the session's goal (docs/GOALS.md), one line, capped"
    )
    mcp_servers: dict[str, dict[str, object]] = Field(
        default_factory=dict[str, dict[str, object]],
        description="MCP servers added to the config's for this agent (name -> an entry in "
        "config.json's mcpServers shape), e.g. the ones an ACP host hands over",
    )


class AgentKillCommand(WireModel):
    type: Literal["agent_kill"] = "agent_kill"
    agent_id: str


class AgentAttachCommand(WireModel):
    type: Literal["agent_attach"] = "agent_attach"
    agent_id: str


class AgentStatusCommand(WireModel):
    type: Literal["agent_status"] = "agent_status"
    agent_id: str


OrchestratorCommand = Annotated[
    AgentListCommand
    | AgentCreateCommand
    | AgentKillCommand
    | AgentAttachCommand
    | AgentStatusCommand,
    Field(discriminator="type"),
]


class AgentSpawnedEvent(WireModel):
    """A kernel started for the agent (created, attached while stopped, or adopted)."""

    type: Literal["agent_spawned"] = "agent_spawned"
    seq: int = Field(default=0, ge=0, description="the gateway's event number (see `since`)")
    agent: AgentInfo
    ts: float


class AgentExitedEvent(WireModel):
    """The agent's kernel is gone (killed, or died); the agent stays listed, stopped or failed."""

    type: Literal["agent_exited"] = "agent_exited"
    seq: int = Field(default=0, ge=0)
    agent_id: str
    exit_code: int | None = None
    agent: AgentInfo | None = Field(default=None, description="the agent's row after the exit")
    ts: float


class AgentStatusChangedEvent(WireModel):
    """The agent's row changed (status, runtime state, mode, model, name, clients or usage)."""

    type: Literal["agent_status_changed"] = "agent_status_changed"
    seq: int = Field(default=0, ge=0)
    agent_id: str
    status: AgentStatus
    runtime_state: RuntimeState
    agent: AgentInfo | None = Field(default=None, description="the whole row as it is now")
    ts: float


class AgentsSnapshotEvent(WireModel):
    """What a subscriber of `/shard/api/events` gets first unless it resumed: every agent, the
    stream's `epoch` (new at each gateway start) and the `seq` of the last event it reflects.
    `gap` is true when the subscriber asked to resume (`since`) but the events after it are no
    longer kept or belong to another epoch: it must replace its list with this one."""

    type: Literal["agents_snapshot"] = "agents_snapshot"
    epoch: str
    seq: int = Field(ge=0)
    agents: list[AgentInfo]
    gap: bool = False
    ts: float


class JobUpdatedEvent(WireModel):
    """A subagent job or one of its runs changed state (accepted, a run starting, running or
    ending, the job ending, its report delivered). `job` is the job as `GET /shard/api/jobs`
    lists it: ids, states and reasons of the job and its runs, never the task or report text
    (those are the parent's private data: `GET /shard/api/jobs/<id>`)."""

    type: Literal["job_updated"] = "job_updated"
    seq: int = Field(default=0, ge=0)
    job_id: str = Field(pattern=r"^job-[A-Za-z0-9_-]+$")
    parent_agent_id: str
    state: JobState
    job: dict[str, Any] = Field(description="the job's summary (runs without their texts)")
    ts: float


class WorkflowUpdatedEvent(WireModel):
    """A workflow run in the gateway changed: started, a step's job launched, a question put
    or answered (`run.pending`: the question every client shows until someone answers it),
    ended. `run` is the run as `GET /shard/api/workflows` lists it (no inputs, no result)."""

    type: Literal["workflow_updated"] = "workflow_updated"
    seq: int = Field(default=0, ge=0)
    run_id: str = Field(pattern=r"^wf-[A-Za-z0-9_-]+$")
    state: Literal["running", "completed", "failed", "cancelled"]
    run: dict[str, Any] = Field(description="the run's summary")
    ts: float


OrchestratorEvent = Annotated[
    AgentSpawnedEvent
    | AgentExitedEvent
    | AgentStatusChangedEvent
    | AgentsSnapshotEvent
    | JobUpdatedEvent
    | WorkflowUpdatedEvent,
    Field(discriminator="type"),
]
