"""Where a subagent's ask goes, without kernels: up the `parent_agent_id` line to the first agent
with a person attached — not the coordinator's own interactive channel on an intermediate child —
bounded, and never round a cycle."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from shard_kernel.gateway.jobs.coordinator import Coordinator
from shard_kernel.gateway.jobs.relay import MAX_HOPS, nearest_person
from shard_kernel.gateway.manifest import AgentManifest


class FakeRegistry:
    """Manifests, running kernels and each agent's interactive client count."""

    def __init__(self) -> None:
        self.manifests: dict[str, AgentManifest] = {}
        self.kernels: dict[str, str] = {}
        self.interactive: dict[str, int] = {}
        self.asked: list[str] = []

    def add(self, agent_id: str, parent: str | None, people: int = 0, running: bool = True) -> None:
        self.manifests[agent_id] = AgentManifest(
            id=agent_id, name=agent_id.removeprefix("agent-"), cwd="/w", parent_agent_id=parent
        )
        if running:
            self.kernels[agent_id] = f"kernel-{agent_id}"
        self.interactive[agent_id] = people

    def kernel_id(self, agent_id: str) -> str | None:
        return self.kernels.get(agent_id)

    async def info(self, agent_id: str) -> Any:
        self.asked.append(agent_id)
        return SimpleNamespace(
            clients_by_role=SimpleNamespace(interactive=self.interactive[agent_id])
        )


def _coordinator(registry: FakeRegistry, tmp_path: Path) -> Coordinator:
    return Coordinator(registry, None, tmp_path, logging.getLogger("test"))  # type: ignore[arg-type]


def _channel(kernel_id: str, role: str = "interactive") -> Any:
    return SimpleNamespace(kernel_id=kernel_id, role=role)


async def test_the_direct_parent_with_a_person_is_the_target() -> None:
    registry = FakeRegistry()
    registry.add("agent-root", None, people=1)
    registry.add("agent-mid", "agent-root", people=1)
    found = await nearest_person(registry, "agent-mid")  # type: ignore[arg-type]
    assert found is not None
    assert found.id == "agent-mid"
    assert registry.asked == ["agent-mid"]


async def test_the_coordinators_own_channel_on_a_child_is_no_person(tmp_path: Path) -> None:
    registry = FakeRegistry()
    registry.add("agent-root", None, people=1)
    registry.add("agent-mid", "agent-root", people=1)  # only the coordinator's channel
    coordinator = _coordinator(registry, tmp_path)
    coordinator._channels["run-mid"] = _channel("kernel-agent-mid")  # pyright: ignore[reportPrivateUsage]
    coordinator._channels["run-other"] = _channel("kernel-agent-root", "observer")  # pyright: ignore[reportPrivateUsage]
    found = await nearest_person(registry, "agent-mid", coordinator._own)  # type: ignore[arg-type]  # pyright: ignore[reportPrivateUsage]
    assert found is not None
    assert found.id == "agent-root"
    assert registry.asked == ["agent-mid", "agent-root"]


async def test_a_person_next_to_the_coordinators_channel_is_found(tmp_path: Path) -> None:
    registry = FakeRegistry()
    registry.add("agent-root", None, people=1)
    registry.add("agent-mid", "agent-root", people=2)  # the coordinator and a person
    coordinator = _coordinator(registry, tmp_path)
    coordinator._channels["run-mid"] = _channel("kernel-agent-mid")  # pyright: ignore[reportPrivateUsage]
    found = await nearest_person(registry, "agent-mid", coordinator._own)  # type: ignore[arg-type]  # pyright: ignore[reportPrivateUsage]
    assert found is not None
    assert found.id == "agent-mid"


async def test_a_stopped_ancestor_is_passed_and_nobody_anywhere_is_none() -> None:
    registry = FakeRegistry()
    registry.add("agent-root", None, people=1)
    registry.add("agent-mid", "agent-root", people=1, running=False)  # stale count, no kernel
    registry.add("agent-leaf", "agent-mid")
    found = await nearest_person(registry, "agent-leaf")  # type: ignore[arg-type]
    assert found is not None
    assert found.id == "agent-root"
    registry.interactive["agent-root"] = 0
    assert await nearest_person(registry, "agent-leaf") is None  # type: ignore[arg-type]
    assert await nearest_person(registry, None) is None  # type: ignore[arg-type]


async def test_a_cycle_a_missing_manifest_and_a_long_line_end_the_walk() -> None:
    registry = FakeRegistry()
    registry.add("agent-a", "agent-b")
    registry.add("agent-b", "agent-a")
    assert await nearest_person(registry, "agent-a") is None  # type: ignore[arg-type]
    assert registry.asked == ["agent-a", "agent-b"]

    registry = FakeRegistry()
    registry.add("agent-child", "agent-gone")
    assert await nearest_person(registry, "agent-child") is None  # type: ignore[arg-type]

    registry = FakeRegistry()
    registry.add("agent-0", None, people=1)
    for n in range(1, MAX_HOPS + 1):
        registry.add(f"agent-{n}", f"agent-{n - 1}")
    assert await nearest_person(registry, f"agent-{MAX_HOPS}") is None  # type: ignore[arg-type]
    assert len(registry.asked) == MAX_HOPS
    found = await nearest_person(registry, f"agent-{MAX_HOPS - 1}")  # type: ignore[arg-type]
    assert found is not None
    assert found.id == "agent-0"
