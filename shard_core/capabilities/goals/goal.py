"""A goal's rules: what text a goal may be, and which goal a branch holds now."""

from __future__ import annotations

from collections.abc import Iterable

from shard_core.types import CheckpointEntry, GoalCheckpoint, SessionEntry
from shard_core.types.errors import ConfigError

GOAL_MAX_CHARS = 500
"""Longer than a summary line should carry; a goal is an objective, not a specification."""


def goal_text(words: list[str]) -> str:
    """The goal `/goal WORDS` sets, one line (as the summary keeps it), or a ConfigError."""
    text = " ".join(" ".join(words).split())
    if not text:
        raise ConfigError("a goal needs some words: /goal TEXT (or /goal done, /goal clear)")
    if len(text) > GOAL_MAX_CHARS:
        raise ConfigError(
            f"the goal is {len(text)} characters; the limit is {GOAL_MAX_CHARS}. "
            "Say the objective in fewer words; nothing was changed."
        )
    return text


def latest_goal(entries: Iterable[SessionEntry]) -> GoalCheckpoint | None:
    """The newest goal checkpoint on the branch (set, done or cleared), None when never set."""
    found: GoalCheckpoint | None = None
    for entry in entries:
        if isinstance(entry, CheckpointEntry) and isinstance(entry.details, GoalCheckpoint):
            found = entry.details
    return found


def current_goal(entries: Iterable[SessionEntry]) -> GoalCheckpoint | None:
    """The goal being worked on now (status active), else None."""
    goal = latest_goal(entries)
    return goal if goal is not None and goal.status == "active" else None


def past_goals(entries: Iterable[SessionEntry]) -> set[str]:
    """Every goal text the branch has set."""
    return {
        entry.details.text
        for entry in entries
        if isinstance(entry, CheckpointEntry)
        and isinstance(entry.details, GoalCheckpoint)
        and entry.details.text is not None
    }
