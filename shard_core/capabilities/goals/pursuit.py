"""`goal.continue`: which bound a run has hit, the prompt of the turn that goes on, and the
`goal_report` tool the model ends a pursuit with (met, or blocked on the person)."""

from __future__ import annotations

from collections.abc import Callable

from shard_core.contracts import ToolContext
from shard_core.engine.config import GoalConfig
from shard_core.engine.hook_points import TurnDone
from shard_core.protocol.events import GoalBound
from shard_core.types import GoalCheckpoint, JsonObject, ToolResult

REPORT = "goal_report"
REPORT_DESCRIPTION = (
    "Report on the session goal (the objective the person set, shown as the Session Goal). "
    "status `met`: the goal is reached; `blocked`: you cannot go on without the person (say "
    "what you need in `summary`). Only while a goal is set; with goal.continue on, you are "
    "prompted to go on until you report."
)
REPORT_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["met", "blocked"]},
        "summary": {"type": "string", "description": "one line: what was done, or what is needed"},
    },
    "required": ["status", "summary"],
}


def hit_bound(config: GoalConfig, done: TurnDone) -> tuple[GoalBound, str] | None:
    """The first bound the run has reached, with the words that say so; None: go on."""
    usage = done.usage
    tokens = usage.context_tokens + usage.output_tokens
    if done.turns >= config.max_turns:
        return "turns", f"{done.turns} turns ran; goal.max_turns is {config.max_turns}"
    if config.max_tokens is not None and tokens >= config.max_tokens:
        return "tokens", f"{tokens} tokens used; goal.max_tokens is {config.max_tokens}"
    cost = usage.cost_usd
    if config.max_cost_usd is not None and cost is not None and cost >= config.max_cost_usd:
        return "cost", f"${cost:.4f} spent; goal.max_cost_usd is ${config.max_cost_usd:g}"
    if config.max_seconds is not None and done.seconds >= config.max_seconds:
        return "time", f"{done.seconds:.0f} s passed; goal.max_seconds is {config.max_seconds:g}"
    return None


def continue_prompt(goal: str, turn: int, config: GoalConfig) -> str:
    """The prompt of the turn that goes on (the person's turn was turn 1)."""
    return (
        f"[goal.continue, turn {turn} of at most {config.max_turns}] The session goal is not "
        f"reported met yet:\n\n{goal}\n\nGo on working toward it. When it is met, call "
        f"{REPORT} with status `met`; if you cannot go on without the person, call it with "
        "status `blocked` and say what you need."
    )


class GoalReportTool:
    name = REPORT
    description = REPORT_DESCRIPTION
    input_schema = REPORT_SCHEMA
    read_only = True  # the goal is the session's own state; no file changes

    def __init__(self, active: Callable[[], GoalCheckpoint | None]) -> None:
        self._active = active

    async def execute(self, input: JsonObject, ctx: ToolContext) -> ToolResult:
        status, summary = input.get("status"), input.get("summary")
        if status not in ("met", "blocked"):
            return ToolResult.error("`status` must be `met` or `blocked`")
        if not isinstance(summary, str) or not summary.strip():
            return ToolResult.error("`summary` must be a line saying what was done or needed")
        if self._active() is None:
            return ToolResult.error("no goal is set: there is nothing to report on")
        line = " ".join(summary.split())
        said = "Goal met" if status == "met" else "Blocked on the goal"
        return ToolResult.ok(f"{said}: {line}", status=status, summary=line)
