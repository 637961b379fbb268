"""One answer to "which model does a new agent get?": config.json's model, then the server's
KERNEL_SHARD_MODEL, then a provider whose key is set, else none — the same for a REST create (the
New agent form, `%shard new`) and an adopted Launcher kernel."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from shard_core.engine.config import ShardConfig
from shard_core.protocol.orchestrator import AgentCreateCommand
from shard_kernel.agent_defaults import ModelDefault, default_model
from shard_kernel.gateway.adoption import server_defaults
from shard_kernel.gateway.registry import AgentRegistry

LOG = logging.getLogger("test-agent-defaults")


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "KERNEL_SHARD_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "xdg" / "shard" / "config.json"


def write_config(path: Path, **values: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def test_each_source_in_its_order() -> None:
    server = {"KERNEL_SHARD_MODEL": "openai/served@http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    assert default_model(server, ShardConfig(model="anthropic/from-config")) == ModelDefault(
        "anthropic/from-config", "config", "model in config.json"
    )
    assert default_model(server, ShardConfig()) == ModelDefault(
        "openai/served@http://127.0.0.1:9/v1", "server", "the server's KERNEL_SHARD_MODEL"
    )
    chosen = default_model({"OPENAI_API_KEY": "k"}, ShardConfig())
    assert (chosen.source, chosen.model.split("/")[0]) == ("provider", "openai")
    assert chosen.why == "the openai key or base URL is set"
    assert default_model({}, ShardConfig()) == ModelDefault(
        "none", "none", "no model is configured"
    )
    assert default_model({}, ShardConfig()).to_json() == {
        "model": "none",
        "source": "none",
        "why": "no model is configured",
        "demo": False,
    }


def test_a_broken_config_is_skipped_and_said(no_config: Path) -> None:
    no_config.parent.mkdir(parents=True)
    no_config.write_text("{not json")
    chosen = default_model({"KERNEL_SHARD_MODEL": "openai/x"})
    assert (chosen.model, chosen.source) == ("openai/x", "server")
    assert chosen.why.startswith("the server's KERNEL_SHARD_MODEL (config.json skipped: ")


class Kernels:
    def __init__(self) -> None:
        self.kernels: dict[str, Any] = {}

    def __contains__(self, kernel_id: object) -> bool:
        return kernel_id in self.kernels


def test_a_create_without_a_model_gets_the_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_config: Path
) -> None:
    monkeypatch.setenv("KERNEL_SHARD_MODEL", "openai/served@http://127.0.0.1:9/v1")
    registry = AgentRegistry(Kernels(), tmp_path / "home", LOG)
    made = registry.create(AgentCreateCommand(cwd=str(tmp_path)))
    assert made.model == "openai/served@http://127.0.0.1:9/v1"
    named = registry.create(AgentCreateCommand(cwd=str(tmp_path), model="scripted/demo"))
    assert named.model == "scripted/demo"  # a model named in the request always wins
    write_config(no_config, model="anthropic/from-config")
    assert registry.create(AgentCreateCommand(cwd=str(tmp_path))).model == "anthropic/from-config"
    monkeypatch.delenv("KERNEL_SHARD_MODEL")
    no_config.unlink()
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # a provider's default: the kernel finds the key
    assert registry.create(AgentCreateCommand(cwd=str(tmp_path))).model is None


def test_an_adopted_kernel_asks_the_same_question(no_config: Path) -> None:
    server = {"KERNEL_SHARD_MODEL": "openai/served", "KERNEL_SHARD_MODE": "build"}
    assert server_defaults(server, LOG)["model"] == "openai/served"
    write_config(no_config, model="anthropic/from-config")
    assert server_defaults(server, LOG)["model"] == "anthropic/from-config"
