"""The Session Goal section: the active goal, verbatim, in place of the built-in extractor's
guess from the first user turns (which still runs when no goal is active). A goal that was
cleared or reported met is not carried on from an earlier summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shard_core.contracts.compactor import ExtractorContext
from shard_core.engine.compaction.excerpts import split_crumb
from shard_core.engine.compaction.extractors import SessionGoal
from shard_core.engine.compaction.format import parse_summary
from shard_core.engine.compaction.merge import sticky_goal
from shard_core.types import GoalCheckpoint, NormalizedBlock


class GoalSection:
    """Replaces the built-in `goal` extractor in place (same name and title)."""

    name = SessionGoal.name
    title = SessionGoal.title
    merge = "replace"  # a set goal replaces the previous summary's; else sticky, done below

    def __init__(
        self,
        goal: Callable[[], GoalCheckpoint | None],
        past: Callable[[], set[str]] = set,
    ) -> None:
        self._goal = goal
        self._past = past
        """every goal text the branch has set: none is sticky once it is not the active one"""
        self._guess = SessionGoal()

    def __call__(self, blocks: Sequence[NormalizedBlock], ctx: ExtractorContext) -> list[str]:
        goal = self._goal()
        if goal is not None and goal.text is not None:
            return [goal.text]
        fresh = self._guess(blocks, ctx)
        if ctx.previous_summary is None:
            return fresh
        past = self._past()
        previous = parse_summary(ctx.previous_summary).sections.get(self.title, [])
        kept = [line for line in previous if split_crumb(line)[0].strip() not in past]
        return sticky_goal(kept, fresh)
