"""Adoption against a fake kernel manager: which starts become agents, what they are called,
and that concurrent starts of one notebook never give one agent two kernels."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from shard_kernel.gateway.adoption import install_adoption, session_document, wants_agent
from shard_kernel.gateway.registry import AgentRegistry

LOG = logging.getLogger("test-adoption")


class FakeKernelManager:
    """The slice of MappingKernelManager the registry and the adoption hook use."""

    default_kernel_name = "python3"

    def __init__(self, root: Path) -> None:
        self.root_dir = str(root)
        self.kernels: dict[str, dict[str, Any]] = {}
        self.starts: list[dict[str, Any]] = []

    def __contains__(self, kernel_id: object) -> bool:
        return kernel_id in self.kernels

    def cwd_for_path(self, path: str) -> str:
        return str(Path(self.root_dir, path))

    async def start_kernel(self, *, kernel_id: str | None = None, **kwargs: Any) -> str:
        await asyncio.sleep(0.01)  # a real start yields; concurrent callers interleave here
        kernel_id = kernel_id or f"k{len(self.starts)}"
        self.starts.append({"kernel_id": kernel_id, **kwargs})
        self.kernels[kernel_id] = {"id": kernel_id, "execution_state": "idle"}
        return kernel_id

    async def shutdown_kernel(self, kernel_id: str, now: bool = False) -> None:
        self.kernels.pop(kernel_id, None)

    async def list_kernels(self) -> list[dict[str, Any]]:
        return list(self.kernels.values())


@pytest.fixture
def setup(tmp_path: Path) -> tuple[FakeKernelManager, AgentRegistry]:
    km = FakeKernelManager(tmp_path / "root")
    registry = AgentRegistry(km, tmp_path / "home", LOG)
    install_adoption(km, registry)
    return km, registry


def session_env(path: str) -> dict[str, str]:
    return {"PATH": "/usr/bin", "JPY_SESSION_NAME": path}


@pytest.mark.parametrize(
    ("raw", "document"),
    [
        ("/srv/root/proj/analysis.ipynb", "proj/analysis.ipynb"),  # Lab names its sessions
        ("proj/analysis.ipynb", "proj/analysis.ipynb"),  # an API path (no session name)
        ("/elsewhere/x.ipynb", "/elsewhere/x.ipynb"),
        ("/srv/root/Console 1", "Console 1"),
        ("", None),
    ],
)
def test_the_session_document_is_a_path_under_the_root(raw: str, document: str | None) -> None:
    assert session_document({"JPY_SESSION_NAME": raw}, "/srv/root") == document
    assert session_document(None, "/srv/root") is None


def test_only_new_shard_kernels_that_name_no_agent_want_one(tmp_path: Path) -> None:
    km = FakeKernelManager(tmp_path)
    km.kernels["running"] = {}
    assert wants_agent(km, {"kernel_name": "shard", "env": {}})
    assert wants_agent(km, {"kernel_name": "shard"})
    assert not wants_agent(km, {"kernel_name": "python3", "env": {}})
    assert not wants_agent(km, {"env": {}})  # the default kernel here is python3
    assert not wants_agent(km, {"kernel_name": "shard", "env": {"KERNEL_SHARD_AGENT_ID": "a"}})
    assert not wants_agent(km, {"kernel_name": "shard", "kernel_id": "running"})


async def test_a_session_start_is_adopted_with_the_agents_variables(
    setup: tuple[FakeKernelManager, AgentRegistry],
) -> None:
    km, registry = setup
    env = {**session_env(f"{km.root_dir}/proj/nb.ipynb"), "KERNEL_SHARD_MODEL": "inherited"}
    kernel_id = await km.start_kernel(path="proj", kernel_name="shard", env=env)
    [manifest] = registry.manifests.values()
    assert (manifest.name, manifest.notebook, manifest.cwd) == (
        "nb",
        "proj/nb.ipynb",
        f"{km.root_dir}/proj",
    )
    started = km.starts[0]["env"]
    assert (started["KERNEL_SHARD_AGENT_ID"], started["KERNEL_SHARD_CWD"]) == (
        manifest.id,
        manifest.cwd,
    )
    # the server's own KERNEL_SHARD_* settings are the new agent's defaults, kept in its manifest
    assert (manifest.model, started["KERNEL_SHARD_MODEL"]) == ("inherited", "inherited")
    assert (started["PATH"], started["JPY_SESSION_NAME"]) == ("/usr/bin", env["JPY_SESSION_NAME"])
    assert registry.kernel_id(manifest.id) == kernel_id

    await km.start_kernel(kernel_name="python3", env=session_env("proj/plain.ipynb"))
    await registry.attach(manifest.id)  # running: nothing starts
    assert len(registry.manifests) == 1
    assert len(km.starts) == 2


async def test_the_servers_shard_settings_are_an_adopted_agents_defaults(
    setup: tuple[FakeKernelManager, AgentRegistry], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    km, registry = setup
    monkeypatch.setenv("KERNEL_SHARD_AGENT_ID", "agent-parent")  # SessionManager copies it
    work = tmp_path / "work"
    work.mkdir()
    server = {
        "KERNEL_SHARD_AGENT_ID": "agent-parent",  # never carried over
        "KERNEL_SHARD_CWD": str(work),
        "KERNEL_SHARD_MODE": "plan",
        "KERNEL_SHARD_HEADLESS_POLICY": "queue",
        "KERNEL_SHARD_ALLOW": "Bash(ls:*)\nRead(**)",
    }
    env = {**session_env(f"{km.root_dir}/nb.ipynb"), **server}
    await km.start_kernel(path="", kernel_name="shard", env=env)
    [manifest] = registry.manifests.values()
    assert manifest.id != "agent-parent"
    assert (manifest.cwd, manifest.mode, manifest.headless_policy) == (str(work), "plan", "queue")
    assert manifest.permissions.allow == ["Bash(ls:*)", "Read(**)"]
    assert km.starts[0]["env"]["KERNEL_SHARD_CWD"] == str(work)


async def test_malformed_server_settings_are_ignored_with_a_warning(
    setup: tuple[FakeKernelManager, AgentRegistry], caplog: pytest.LogCaptureFixture
) -> None:
    km, registry = setup
    env = {**session_env(f"{km.root_dir}/nb.ipynb"), "KERNEL_SHARD_HEADLESS_POLICY": "maybe"}
    with caplog.at_level(logging.WARNING, logger=LOG.name):
        await km.start_kernel(path="", kernel_name="shard", env=env)
    [manifest] = registry.manifests.values()
    assert (manifest.headless_policy, manifest.cwd) == ("deny", km.root_dir)
    assert "KERNEL_SHARD_HEADLESS_POLICY='maybe'" in caplog.text


async def test_concurrent_reopens_and_attaches_never_share_an_agent(
    setup: tuple[FakeKernelManager, AgentRegistry],
) -> None:
    km, registry = setup
    first = await km.start_kernel(path="", kernel_name="shard", env=session_env("nb.ipynb"))
    [agent] = registry.manifests
    await km.shutdown_kernel(first)  # the session was shut down: the agent is stopped

    reopened = await asyncio.gather(
        km.start_kernel(path="", kernel_name="shard", env=session_env("nb.ipynb")),
        km.start_kernel(path="", kernel_name="shard", env=session_env("nb.ipynb")),
        registry.attach(agent),
    )
    owners = {a: k for a in registry.manifests if (k := registry.kernel_id(a)) is not None}
    assert len(set(reopened)) == 3 - 1  # the attach got the kernel its reopening started
    assert sorted(owners.values()) == sorted(set(reopened))
    assert owners[agent] in reopened[:2]
    names = sorted(m.name for m in registry.manifests.values())
    assert names == ["nb", "nb-2"]
    per_agent = [s["env"]["KERNEL_SHARD_AGENT_ID"] for s in km.starts]
    assert sorted(per_agent) == sorted([agent, agent, *(a for a in owners if a != agent)])
