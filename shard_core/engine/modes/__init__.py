"""Modes: policy bundles (tools, prompt section, permission vote, turn-end hook) — plan, build."""

from __future__ import annotations

from shard_core.contracts import Mode
from shard_core.engine.modes.build import BuildMode, latest_plan
from shard_core.engine.modes.plan import PlanMode
from shard_core.engine.modes.plan_extract import extract_plan

__all__ = ["BuildMode", "PlanMode", "bundled_modes", "extract_plan", "latest_plan"]


def bundled_modes() -> list[Mode]:
    """The modes Shard ships, default first."""
    return [BuildMode(), PlanMode()]
