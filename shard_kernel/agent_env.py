"""AgentEnv: an agent kernel's configuration, read from `KERNEL_SHARD_*` variables.

Kernel gateways forward `KERNEL_*` variables from the create-kernel request, so these are all
any gateway needs to start a configured agent — except its rules: an agent the gateway made
is started with `KERNEL_SHARD_PERMISSIONS=manifest` and reads its allow and deny rules from its
manifest (`SHARD_HOME/agents/<id>/manifest.json`, on the volume the server and its kernels
share), because a long rule list does not fit in an environment ("Argument list too long").
Kernels started without a gateway (`shard batch`, `shard demo`, a plain Launcher kernel) still
take `KERNEL_SHARD_ALLOW`/`DENY`.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from shard_core.engine.state import shard_home
from shard_core.protocol.orchestrator import HeadlessPolicy
from shard_core.types.errors import ConfigError

PREFIX = "KERNEL_SHARD_"
POLICIES = ("deny", "allow_if_rule_matches", "queue")
TRUST_VARIABLE = PREFIX + "TRUST_PROJECT"
PERMISSIONS_VARIABLE = PREFIX + "PERMISSIONS"
FROM_MANIFEST = "manifest"
"""`KERNEL_SHARD_PERMISSIONS=manifest`: the rules are the agent manifest's, not ALLOW/DENY."""


@dataclass(frozen=True)
class AgentEnv:
    agent_id: str
    generated_id: bool
    cwd: Path
    model: str | None
    mode: str | None
    """None: the agent definition's mode, else build"""
    headless_policy: HeadlessPolicy | None
    permission_timeout: float | None
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    trust_project: bool
    agent_definition: str | None = None
    """KERNEL_SHARD_AGENT_DEFINITION: build the agent from agents/NAME.md"""
    skills: tuple[str, ...] | None = None
    """KERNEL_SHARD_SKILLS (one name a line): only these skills; None: every one found"""
    rules_from: str | None = None
    """KERNEL_SHARD_RULES_FROM: where ALLOW/DENY came from (default: KERNEL_SHARD_ALLOW/DENY)"""
    parent_agent_id: str | None = None
    """the manifest's parent (a subagent: its Stop hooks are SubagentStop)"""
    goal: str | None = None
    """KERNEL_SHARD_GOAL: the session's goal, when its branch never had one"""
    mcp_servers: Mapping[str, Mapping[str, object]] | None = None
    """the manifest's MCP servers, added to the config's (None: none added)"""


def trusts_project(env: Mapping[str, str] | None = None) -> bool:
    """`KERNEL_SHARD_TRUST_PROJECT` says yes (1, true, yes): the one reading of the variable, for
    a kernel and for the server that validates what its kernels will find."""
    env = os.environ if env is None else env
    return env.get(TRUST_VARIABLE, "").strip().lower() in ("1", "true", "yes")


def kernel_hint(line: str) -> str:
    """A diagnostic as a kernel's user reads it: the variable that is a kernel's
    `--trust-project` named beside the flag."""
    if TRUST_VARIABLE in line:
        return line
    return line.replace("--trust-project", f"--trust-project (in a kernel: {TRUST_VARIABLE}=1)")


def _rules(raw: str | None) -> tuple[str, ...]:
    """Rules separated by newlines (a rule may contain spaces and commas)."""
    return tuple(r.strip() for r in (raw or "").splitlines() if r.strip())


def read_agent_env(env: Mapping[str, str] | None = None) -> AgentEnv:
    env = os.environ if env is None else env

    def get(name: str) -> str | None:
        value = env.get(PREFIX + name, "").strip()
        return value or None

    agent_id = get("AGENT_ID")
    policy = get("HEADLESS_POLICY")
    if policy is not None and policy not in POLICIES:
        raise ConfigError(f"{PREFIX}HEADLESS_POLICY={policy!r}; use one of {', '.join(POLICIES)}")
    timeout = get("PERMISSION_TIMEOUT")
    try:
        seconds = float(timeout) if timeout else None
    except ValueError:
        raise ConfigError(f"{PREFIX}PERMISSION_TIMEOUT={timeout!r} is not a number") from None
    cwd = Path(get("CWD") or os.getcwd()).expanduser()
    if not cwd.is_dir():
        raise ConfigError(f"{PREFIX}CWD={cwd} is not a directory")
    allow, deny = _rules(get("ALLOW")), _rules(get("DENY"))
    rules_from = get("RULES_FROM") or f"kernel environment {PREFIX}ALLOW/DENY"
    parent, servers = None, None
    if get("PERMISSIONS") is not None:
        allow, deny, rules_from, parent, servers = _manifest_rules(
            get("PERMISSIONS"), agent_id, get("RULES_FROM")
        )
    return AgentEnv(
        agent_id=agent_id or f"agent-{uuid.uuid4().hex[:12]}",
        generated_id=agent_id is None,
        cwd=cwd,
        model=get("MODEL"),
        mode=get("MODE"),
        headless_policy=cast(HeadlessPolicy | None, policy),
        permission_timeout=seconds,
        allow=allow,
        deny=deny,
        trust_project=trusts_project(env),
        agent_definition=get("AGENT_DEFINITION"),
        skills=_rules(get("SKILLS")) or None,
        rules_from=rules_from,
        parent_agent_id=parent,
        goal=get("GOAL"),
        mcp_servers=servers or None,
    )


def _manifest_rules(
    where: str | None, agent_id: str | None, label: str | None
) -> tuple[tuple[str, ...], tuple[str, ...], str, str | None, dict[str, dict[str, object]]]:
    """The allow and deny rules of the agent's manifest, how explanations name them, its
    parent agent and the MCP servers its create request added. A
    manifest that cannot be read stops the agent: it would otherwise run without its denies."""
    from pydantic import ValidationError

    from shard_kernel.gateway.manifest import MANIFEST, AgentManifest, agent_folder

    if where != FROM_MANIFEST:
        raise ConfigError(f"{PERMISSIONS_VARIABLE}={where!r}; the only value is {FROM_MANIFEST}")
    if agent_id is None:
        raise ConfigError(f"{PERMISSIONS_VARIABLE}={FROM_MANIFEST} needs {PREFIX}AGENT_ID")
    try:
        path = agent_folder(shard_home(), agent_id) / MANIFEST
        manifest = AgentManifest.model_validate_json(path.read_bytes())
    except (OSError, ValueError, ValidationError) as exc:  # ValueError: not an agent id
        raise ConfigError(f"the rules of agent {agent_id} cannot be read: {exc}") from None
    if manifest.id != agent_id:
        raise ConfigError(f"{path} is the manifest of {manifest.id}, not of {agent_id}")
    rules = manifest.permissions
    where_from = label or manifest.rules_from or f"agent manifest {path}"
    parent = manifest.parent_agent_id
    return tuple(rules.allow), tuple(rules.deny), where_from, parent, manifest.mcp_servers
