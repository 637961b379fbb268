"""BuildMode: every tool, and the latest plan on the active branch as an `## Active Plan` section.

The plan comes only from `ctx.branch` — the entries on the active branch, which is all the
engine passes — so a plan made on another branch never appears. No plan, no prompt change.
"""

from __future__ import annotations

from collections.abc import Sequence

from shard_core.contracts import ModeContext, Tool
from shard_core.types import (
    AssistantMessage,
    CheckpointDetails,
    CheckpointEntry,
    Decision,
    PlanCheckpoint,
    SessionEntry,
)

__all__ = ["BuildMode", "latest_plan"]


class BuildMode:
    """The `build` mode: all tools, the active plan in the prompt, no vote of its own."""

    name: str = "build"
    description: str = "Make changes with every tool, following the active plan if there is one."

    def filter_tools(self, tools: Sequence[Tool]) -> list[Tool]:
        return list(tools)

    def prompt_section(self, ctx: ModeContext) -> str | None:
        plan = latest_plan(ctx.branch)
        return None if plan is None else active_plan_section(plan)

    def vote(self, tool: Tool, input: dict[str, object]) -> Decision | None:
        return None

    def on_turn_end(self, message: AssistantMessage, ctx: ModeContext) -> CheckpointDetails | None:
        return None


def latest_plan(branch: Sequence[SessionEntry]) -> PlanCheckpoint | None:
    """The newest plan checkpoint on `branch` (newest last), if any."""
    for entry in reversed(branch):
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, PlanCheckpoint):
            return entry.details
    return None


def active_plan_section(plan: PlanCheckpoint) -> str:
    lines = [
        "## Active Plan",
        "",
        "Carry out this plan, step by step, in order. Say so when you deviate from it.",
        "",
    ]
    for number, step in enumerate(plan.steps, start=1):
        mark = " (done)" if step.done else ""
        text = step.text.replace("\n", "\n   ")
        lines.append(f"{number}. {text}{mark}")
    return "\n".join(lines)
