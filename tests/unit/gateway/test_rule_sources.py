"""Every rule an agent's explanation names carries its true source: the REST create, a
notebook's metadata, the config file (with its path), a project or user rule file, a grant —
never "--allow flag" for rules no flag gave. Each agent here is built the way its kernel builds
it: from the `KERNEL_SHARD_*` variables the gateway hands the kernel."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path

import pytest

from shard_core.contracts import PermissionQuery
from shard_core.engine.permissions import GrantStore
from shard_core.protocol.orchestrator import AgentCreateCommand
from shard_core.sdk import create_agent
from shard_kernel.agent_env import read_agent_env
from shard_kernel.batch import BatchOptions
from shard_kernel.batch import kernel_env as batch_env
from shard_kernel.gateway.adoption import install_adoption
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.gateway.validation import kernel_env
from tests.unit.gateway.test_adoption import FakeKernelManager, session_env

LOG = logging.getLogger("test-rule-sources")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


async def _reason(env: Mapping[str, str], tool: str, **input: object) -> str:
    """Why the agent a kernel would build from `env` allows `tool(input)`."""
    found = read_agent_env(env)
    agent = await create_agent(
        cwd=found.cwd,
        model="scripted/demo",
        agent_id=found.agent_id,
        allow=found.allow,
        deny=found.deny,
        rules_from=found.rules_from,
        trust_project=found.trust_project,
        env={},
    )
    try:
        query = PermissionQuery(
            tool=tool,
            input=dict(input),
            read_only=False,
            cwd=found.cwd,
            call_id="c",
            turn_id="t",
            agent_id=found.agent_id,
        )
        explained = agent.gate.explain(query)
    finally:
        await agent.close()
    assert explained.decision == "allow", explained.reason
    return explained.reason


async def test_rules_of_a_rest_create_are_named_as_such(tmp_path: Path, home: Path) -> None:
    registry = AgentRegistry(FakeKernelManager(tmp_path), home, LOG)
    command = AgentCreateCommand.model_validate(
        {"cwd": str(tmp_path), "permissions": {"allow": ["Bash(make:*)"]}}
    )
    manifest = registry.create(command)

    reason = await _reason(kernel_env(manifest), "bash", command="make test")

    assert reason.endswith("`make test` by Bash(make:*) (agent create request)")


async def test_rules_of_a_notebooks_metadata_are_named_as_such(tmp_path: Path, home: Path) -> None:
    km = FakeKernelManager(tmp_path / "root")
    registry = AgentRegistry(km, home, LOG)
    install_adoption(km, registry)
    notebook = tmp_path / "root" / "proj" / "nb.ipynb"
    notebook.parent.mkdir(parents=True)
    metadata = {"kernelspec": {"name": "shard"}, "shard": {"allow": ["Bash(make:*)"]}}
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata}))

    await km.start_kernel(path="proj", kernel_name="shard", env=session_env(str(notebook)))
    reason = await _reason(km.starts[0]["env"], "bash", command="make test")

    assert reason.endswith("(notebook metadata of proj/nb.ipynb)")


async def test_rules_of_a_batch_notebooks_metadata_are_named_as_such(
    tmp_path: Path, home: Path
) -> None:
    options = BatchOptions(notebook=tmp_path / "run.ipynb", cwd=tmp_path)
    env = batch_env(options, {"shard": {"allow": ["Bash(make:*)"]}})

    reason = await _reason(env, "bash", command="make test")

    assert reason.endswith("(notebook metadata of run.ipynb)")


async def test_config_file_project_rules_and_grants_are_named(tmp_path: Path, home: Path) -> None:
    config = tmp_path / "xdg" / "shard" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"permissions": {"allow": ["Bash(make:*)"]}}))
    rules = tmp_path / "ws" / ".shard" / "rules" / "team.json"
    rules.parent.mkdir(parents=True)
    rules.write_text(json.dumps({"allow": ["Bash(tox:*)"]}))
    user_rules = home / "rules" / "mine.json"
    user_rules.parent.mkdir(parents=True)
    user_rules.write_text(json.dumps({"allow": ["Bash(nox:*)"]}))
    GrantStore("agent-granted").add("Bash(just:*)", granted_by="test")
    env = {
        "KERNEL_SHARD_CWD": str(tmp_path / "ws"),
        "KERNEL_SHARD_AGENT_ID": "agent-granted",
        "KERNEL_SHARD_TRUST_PROJECT": "1",
    }

    assert (await _reason(env, "bash", command="make")).endswith(f"(config file {config})")
    assert (await _reason(env, "bash", command="tox")).endswith(f"(project rules {rules})")
    assert (await _reason(env, "bash", command="nox")).endswith(f"(user rules {user_rules})")
    assert (await _reason(env, "bash", command="just")).endswith("(allow-always grant)")
