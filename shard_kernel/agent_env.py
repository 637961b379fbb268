"""AgentEnv: an agent kernel's configuration, read from `KERNEL_SHARD_*` variables.

Kernel gateways forward `KERNEL_*` variables from the create-kernel request, so these are all
any gateway needs to start a configured agent.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from shard_core.protocol.orchestrator import HeadlessPolicy
from shard_core.types.errors import ConfigError

PREFIX = "KERNEL_SHARD_"
POLICIES = ("deny", "allow_if_rule_matches", "queue")


@dataclass(frozen=True)
class AgentEnv:
    agent_id: str
    generated_id: bool
    cwd: Path
    model: str | None
    mode: str
    headless_policy: HeadlessPolicy | None
    permission_timeout: float | None
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    trust_project: bool


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
    return AgentEnv(
        agent_id=agent_id or f"agent-{uuid.uuid4().hex[:12]}",
        generated_id=agent_id is None,
        cwd=cwd,
        model=get("MODEL"),
        mode=get("MODE") or "build",
        headless_policy=cast(HeadlessPolicy | None, policy),
        permission_timeout=seconds,
        allow=_rules(get("ALLOW")),
        deny=_rules(get("DENY")),
        trust_project=(get("TRUST_PROJECT") or "").lower() in ("1", "true", "yes"),
    )
