"""What a launch asks for, checked whole before anything is written, and the child's config.

A child is configured only from its parent's manifest and the agent definition it names —
never from its task text — and never gets more than its parent: its allow rules are a subset
of the parent's (a definition's others become deny rules), the parent's ask and deny rules
stay, a definition's tool allowlist also becomes deny rules for the other tools, and a parent
in plan mode has children in plan mode. The child's kernel builds its agent from the same
definition (its prompt, skills and tool allowlist).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shard_core.engine.agent_definitions import AgentDefinition
from shard_core.protocol.orchestrator import PermissionConfig
from shard_kernel.gateway.manifest import AgentManifest

MAX_TASKS = 16
MAX_TASK_CHARS = 100_000
PREVIOUS = "{previous}"
KNOWN_TOOLS = (
    "read", "write", "edit", "bash", "grep", "find", "ls", "recall",
    "task_status", "task_output", "task_stop",
    "subagent_launch", "subagent_wait", "subagent_steer", "subagent_relaunch",
    "subagent_status", "subagent_stop",
)  # fmt: skip


class LaunchError(ValueError):
    """The request is not a job the gateway can accept (400), with what to fix."""


class LaunchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parent: str = Field(min_length=1)
    strategy: Literal["single", "parallel", "chain"] = "single"
    task: str | None = Field(default=None, min_length=1, max_length=MAX_TASK_CHARS)
    tasks: list[str] | None = Field(default=None, min_length=1, max_length=MAX_TASKS)
    agent: str | None = Field(default=None, min_length=1, max_length=64)
    deadline: float | None = Field(default=None, gt=0, le=86_400, allow_inf_nan=False)
    concurrency: int | None = Field(default=None, ge=1, le=32)
    context: Literal["fresh", "fork"] = "fresh"
    """fork: each child starts from the parent's conversation up to its last completed turn"""

    @model_validator(mode="after")
    def _shape(self) -> LaunchRequest:
        tasks = self.all_tasks()
        if not tasks:
            raise ValueError("give `task` (or `tasks` for parallel and chain)")
        if any(not t.strip() or len(t) > MAX_TASK_CHARS for t in tasks):
            raise ValueError(f"every task needs text, at most {MAX_TASK_CHARS} characters")
        if self.strategy == "single" and len(tasks) != 1:
            raise ValueError("strategy single takes one task; use parallel or chain for more")
        if self.strategy == "chain":
            if PREVIOUS in tasks[0]:
                raise ValueError("the first step of a chain has no {previous} to use")
        elif any(PREVIOUS in t for t in tasks):
            raise ValueError("{previous} only means something in a chain")
        return self

    def all_tasks(self) -> list[str]:
        return [*([self.task] if self.task else []), *(self.tasks or [])]


def parse_launch(body: dict[str, Any]) -> LaunchRequest:
    try:
        return LaunchRequest.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "request"
        raise LaunchError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None


def child_manifest(
    parent: AgentManifest,
    definition: AgentDefinition | None,
    *,
    agent_id: str,
    name: str,
    created: float,
) -> AgentManifest:
    """The child's manifest: its parent's bounds, narrowed by the definition."""
    allowed = parent.permissions.allow
    wanted = list(definition.allow) if definition and definition.allow else allowed
    allow = [rule for rule in wanted if rule in allowed]
    ask = [*parent.permissions.ask, *(definition.ask if definition else ())]
    deny = [*parent.permissions.deny, *(definition.deny if definition else ())]
    # The child's kernel builds its agent from the definition, rules included: what it would
    # allow beyond the parent is denied outright (a deny rule beats an allow rule).
    deny += [rule for rule in wanted if rule not in allowed]
    if definition is not None and definition.tools is not None:
        deny += [_rule_name(t) for t in KNOWN_TOOLS if t not in definition.tools]
    mode = "plan" if parent.mode == "plan" else (definition.mode if definition else None)
    return parent.model_copy(
        update={
            "id": agent_id,
            "name": name,
            "model": (definition.model if definition else None) or parent.model,
            "mode": mode or "build",
            "permissions": PermissionConfig(allow=allow, ask=_unique(ask), deny=_unique(deny)),
            "created": created,
            "notebook": None,
            "agent_definition": definition.name if definition else None,
        }
    )


def _rule_name(tool: str) -> str:
    return "".join(part.capitalize() for part in tool.split("_"))


def _unique(rules: list[str]) -> list[str]:
    return list(dict.fromkeys(rules))
