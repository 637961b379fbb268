"""The Session Goal section when a goal is set: the goal, verbatim, in place of the built-in
extractor's guess from the first user turns (which still runs when no goal is set)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.extractors import SessionGoal
from shard_core.engine.compaction.format import parse_summary
from shard_core.engine.compaction.merge import sticky_goal
from shard_core.types import GoalCheckpoint, NormalizedBlock


class GoalSection:
    """Replaces the built-in `goal` extractor in place (same name and title)."""

    name = SessionGoal.name
    title = SessionGoal.title
    merge = "replace"  # a set goal replaces the previous summary's; else sticky, done below

    def __init__(self, goal: Callable[[], GoalCheckpoint | None]) -> None:
        self._goal = goal
        self._guess = SessionGoal()

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        goal = self._goal()
        if goal is not None and goal.text is not None:
            return [goal.text]
        fresh = self._guess(blocks, ctx)
        if ctx.previous_summary is None:
            return fresh
        previous = parse_summary(ctx.previous_summary).sections.get(self.title, [])
        return sticky_goal(previous, fresh)
