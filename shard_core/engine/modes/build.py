"""BuildMode: every tool, and the latest plan on the active branch as an `## Active Plan` section.

The plan comes only from `ctx.branch` — the entries on the active branch, which is all the
engine passes — so a plan made on another branch never appears. No plan, no prompt change.

The section asks the model to say `Done: step N` when it finishes a step; at the end of a turn
those lines mark the steps done in a new plan checkpoint, so the prompt's next turn, the
compaction summary's Progress section and its next action follow the work.
"""

from __future__ import annotations

import re
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
        plan = latest_plan(ctx.branch)
        return None if plan is None else mark_done(plan, message.text)


def latest_plan(branch: Sequence[SessionEntry]) -> PlanCheckpoint | None:
    """The newest plan checkpoint on `branch` (newest last), if any."""
    for entry in reversed(branch):
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, PlanCheckpoint):
            return entry.details
    return None


DONE_LINE = re.compile(
    r"^[\s>*_-]*done:?[\s*_]*steps?\s+(?P<numbers>\d+(?:\s*(?:,|and|&|-|\u2013)\s*\d+)*)",
    re.IGNORECASE | re.MULTILINE,
)


def finished_steps(text: str, count: int) -> set[int]:
    """The step numbers (1..count) a reply's `Done: step 2` / `Done: steps 1-3, 5` lines name."""
    found: set[int] = set()
    for match in DONE_LINE.finditer(text):
        spec = re.sub(r"\s*(?:and|&)\s*", ",", match["numbers"])
        for part in re.split(r"\s*,\s*", spec):
            low, _, high = re.sub(r"\s*[-\u2013]\s*", "-", part).partition("-")
            found.update(range(max(1, int(low)), min(count, int(high or low)) + 1))
    return found


def mark_done(plan: PlanCheckpoint, text: str) -> PlanCheckpoint | None:
    """The plan with the steps `text` reports finished marked done; None when none is new."""
    finished = finished_steps(text, len(plan.steps))
    steps = [
        step.model_copy(update={"done": True}) if n in finished and not step.done else step
        for n, step in enumerate(plan.steps, start=1)
    ]
    if steps == plan.steps:
        return None
    return plan.model_copy(update={"steps": steps})


def active_plan_section(plan: PlanCheckpoint) -> str:
    lines = [
        "## Active Plan",
        "",
        "Carry out this plan, step by step, in order. Say so when you deviate from it. When a "
        "step is finished, say so on a line of its own: `Done: step N` (or `Done: steps 1-3`).",
        "",
    ]
    for number, step in enumerate(plan.steps, start=1):
        mark = " (done)" if step.done else ""
        text = step.text.replace("\n", "\n   ")
        lines.append(f"{number}. {text}{mark}")
    return "\n".join(lines)
