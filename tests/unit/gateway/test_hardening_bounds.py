"""Bounds on a create request and the rules' way to the kernel: each limit is a 400 naming the
field, checked before any rule is parsed; the kernel env carries no rules; a kernel told to read
them from its manifest does so, and refuses to start when it cannot (it would run without its
deny rules). Through a real server: tests/integration/gateway/test_hardening_bounds.py."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shard_core.protocol.orchestrator import PermissionConfig
from shard_core.types.errors import ConfigError
from shard_kernel.agent_env import read_agent_env
from shard_kernel.gateway.manifest import AgentManifest, ManifestStore
from shard_kernel.gateway.validation import (
    MAX_RULE_CHARS,
    MAX_SKILLS,
    BadRequestError,
    kernel_env,
    parse_create,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "ws").mkdir()
    return tmp_path / "home"


def _message(body: dict[str, object]) -> str:
    with pytest.raises(BadRequestError) as caught:
        parse_create(body)
    return str(caught.value)


def test_each_bound_names_its_field(home: Path) -> None:
    cwd = str(home.parent / "ws")
    ask_many = {"ask": ["Read"] * 1_001}
    long_rule = {"allow": ["Bash(ls)", "Read(" + "a" * MAX_RULE_CHARS + ")"]}

    assert _message({"cwd": cwd, "permissions": ask_many}) == (
        "permissions.ask: 1,001 rules; at most 1,000 a list"
    )
    assert _message({"cwd": cwd, "permissions": long_rule}) == (
        "permissions.allow[1]: a rule of 4,102 characters; at most 4,096"
    )
    skills = [f"s{i}" for i in range(MAX_SKILLS + 1)]
    assert _message({"cwd": cwd, "skills": skills}) == "skills: 101 names; at most 100"
    # bounds come first: a bad cwd with too many rules is told about the rules
    many = {"allow": ["Read"] * 1_001}
    assert _message({"cwd": "/nowhere", "permissions": many}).startswith("permissions.allow:")


def test_the_kernel_reads_its_rules_from_the_manifest(home: Path) -> None:
    manifest = AgentManifest(
        id="agent-rules", name="r", cwd=str(home.parent / "ws"),
        permissions=PermissionConfig(allow=["Bash(make:*)"], deny=["Bash(rm:*)"]),
        rules_from="agent create request",
    )  # fmt: skip
    ManifestStore(home, logging.getLogger("test")).save(manifest)
    env = kernel_env(manifest)

    assert "KERNEL_SHARD_ALLOW" not in env
    assert "KERNEL_SHARD_DENY" not in env
    found = read_agent_env({**env, "KERNEL_SHARD_ALLOW": "Bash(*)"})  # stray: not the source
    assert (found.allow, found.deny) == (("Bash(make:*)",), ("Bash(rm:*)",))
    assert found.rules_from == "agent create request"


def test_a_kernel_whose_manifest_cannot_be_read_does_not_start(home: Path) -> None:
    manifest = AgentManifest(id="agent-gone", name="g", cwd=str(home.parent / "ws"))
    env = kernel_env(manifest)  # never saved

    with pytest.raises(ConfigError, match="the rules of agent agent-gone cannot be read"):
        read_agent_env(env)
    with pytest.raises(ConfigError, match="not an agent id"):
        read_agent_env({**env, "KERNEL_SHARD_AGENT_ID": "../../etc"})
    with pytest.raises(ConfigError, match="the only value is manifest"):
        read_agent_env({**env, "KERNEL_SHARD_PERMISSIONS": "env"})
