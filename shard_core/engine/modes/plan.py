"""PlanMode: look, don't touch — read-only tools, a plan-writing prompt, the plan extracted.

The model is told to end its reply with a `## Implementation Plan` section; `on_turn_end`
turns that section into a PlanCheckpoint the loop persists. Any tool that is not read-only is
filtered out of the request and, should the model call one anyway, voted down.
"""

from __future__ import annotations

from collections.abc import Sequence

from shard_core.contracts import ModeContext, Tool
from shard_core.engine.modes.plan_extract import PLAN_HEADING, extract_plan
from shard_core.types import AssistantMessage, CheckpointDetails, Decision, Deny

__all__ = ["PlanMode"]

PLAN_PROMPT = f"""## Plan mode

You are in plan mode: investigate with the read-only tools and do not change anything — no
edits, no writes, no commands. When you understand the task, end your reply with a section
headed exactly `{PLAN_HEADING}` that lists the steps to carry it out as an ordered, numbered
list, one concrete change per step (files, functions, tests). The user switches to build mode
to carry the plan out."""


class PlanMode:
    """The `plan` mode: a policy bundle, no code path in the loop."""

    name: str = "plan"
    description: str = "Read-only investigation that ends in an implementation plan."

    def filter_tools(self, tools: Sequence[Tool]) -> list[Tool]:
        return [tool for tool in tools if tool.read_only]

    def prompt_section(self, ctx: ModeContext) -> str | None:
        return PLAN_PROMPT

    def vote(self, tool: Tool, input: dict[str, object]) -> Decision | None:
        if tool.read_only:
            return None
        reason = (
            f"{tool.name} changes things and plan mode is read-only; "
            "finish the plan, the user switches to build mode (/mode build) to carry it out"
        )
        return Deny(reason=reason, rule="mode:plan")

    def on_turn_end(self, message: AssistantMessage, ctx: ModeContext) -> CheckpointDetails | None:
        return extract_plan(message.text)
