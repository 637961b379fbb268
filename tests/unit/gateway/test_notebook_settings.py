"""A notebook's `metadata.shard` becomes its adopted agent's settings (offline model, rules)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from shard_core.protocol.orchestrator import PermissionConfig
from shard_kernel.gateway.adoption import install_adoption
from shard_kernel.gateway.registry import AgentRegistry
from shard_kernel.notebook_settings import notebook_settings
from tests.unit.gateway.test_adoption import FakeKernelManager, session_env

LOG = logging.getLogger("test-notebook-settings")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no config.json


def write_notebook(path: Path, shard: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"kernelspec": {"name": "shard"}, "shard": shard}
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata}))
    return path


def test_a_notebooks_script_rules_and_mode_apply_offline(tmp_path: Path) -> None:
    script = tmp_path / "nb" / "scripts" / "x.json"
    script.parent.mkdir(parents=True)
    script.write_text("{}")
    meta = {
        "model": "scripted/scripts/x.json",
        "allow": ["Edit(src/**)", " ", 3],
        "deny": ["Bash(rm:*)"],
        "mode": "plan",
        "headless_policy": "queue",
    }
    found = notebook_settings(write_notebook(tmp_path / "nb" / "a.ipynb", meta), {}, LOG)
    assert found == {
        "cwd": str((tmp_path / "nb").resolve()),  # the notebook's folder
        "model": f"scripted/{script.resolve()}",  # relative to the notebook's folder
        "mode": "plan",
        "headless_policy": "queue",
        "permissions": PermissionConfig(allow=["Edit(src/**)"], deny=["Bash(rm:*)"]),
    }


def test_a_scripted_model_gives_way_to_a_configured_key(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "a.ipynb", {"model": "scripted/demo", "mode": "build"})
    here = str(tmp_path.resolve())
    with_key = notebook_settings(path, {"ANTHROPIC_API_KEY": "k"}, LOG)
    assert with_key == {"cwd": here, "mode": "build"}
    assert notebook_settings(path, {}, LOG) == {
        "cwd": here,
        "model": "scripted/demo",
        "mode": "build",
    }
    real = write_notebook(tmp_path / "b.ipynb", {"model": "anthropic/claude-sonnet-4-5"})
    assert notebook_settings(real, {"ANTHROPIC_API_KEY": "k"}, LOG) == {
        "cwd": here,
        "model": "anthropic/claude-sonnet-4-5",
    }


@pytest.mark.parametrize(
    "content", ["not json", json.dumps([1, 2]), json.dumps({"metadata": {"shard": "x"}})]
)
def test_unreadable_or_odd_notebooks_say_nothing(tmp_path: Path, content: str) -> None:
    path = tmp_path / "odd.ipynb"
    path.write_text(content)
    assert notebook_settings(path, {}, LOG) == {}
    assert notebook_settings(tmp_path / "missing.ipynb", {}, LOG) == {}
    bad = write_notebook(tmp_path / "bad.ipynb", {"mode": "yolo", "headless_policy": "maybe"})
    assert notebook_settings(bad, {}, LOG) == {"cwd": str(tmp_path.resolve())}


async def test_lab_opening_a_notebook_adopts_its_settings(tmp_path: Path) -> None:
    km = FakeKernelManager(tmp_path / "root")
    registry = AgentRegistry(km, tmp_path / "home", LOG)
    install_adoption(km, registry)
    script = tmp_path / "root" / "proj" / "s.json"
    write_notebook(tmp_path / "root" / "proj" / "nb.ipynb", {"model": "scripted/s.json"})
    script.write_text("{}")
    await km.start_kernel(path="proj", kernel_name="shard", env=session_env("proj/nb.ipynb"))
    [manifest] = registry.manifests.values()
    assert manifest.model == f"scripted/{script.resolve()}"
    assert manifest.cwd == str(script.parent.resolve())
    assert km.starts[0]["env"]["KERNEL_SHARD_MODEL"] == manifest.model
