"""Goals (L3): the session's objective set with `/goal`, kept in the log as a `GoalCheckpoint`,
shown in `/status` and carried verbatim through compaction as the Session Goal section."""

from __future__ import annotations

from shard_core.capabilities.goals.capability import GoalsCapability
from shard_core.capabilities.goals.goal import (
    GOAL_MAX_CHARS,
    current_goal,
    goal_text,
    latest_goal,
)

__all__ = ["GOAL_MAX_CHARS", "GoalsCapability", "current_goal", "goal_text", "latest_goal"]
