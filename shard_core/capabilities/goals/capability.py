"""The goals capability, installed through the ExtensionApi like any extension.

    goals = GoalsCapability(store=lambda: session_store)
    await host.install("shard.goals", goals)

It registers `/goal` (`/goal TEXT` sets the objective, `/goal` shows it, `/goal done` marks it
met, `/goal clear` drops it) and the Session Goal section compaction writes: the goal verbatim
while one is set. Each change is a `GoalCheckpoint` in the session log, so a resumed or forked
session has it too.
"""

from __future__ import annotations

from collections.abc import Callable

from shard_core.capabilities.commands import literal
from shard_core.capabilities.goals.goal import current_goal, goal_text, latest_goal
from shard_core.capabilities.goals.summary import GoalSection
from shard_core.contracts import ExtensionApi
from shard_core.engine.session_store import SessionStore
from shard_core.types import CheckpointEntry, GoalCheckpoint
from shard_core.types.errors import ConfigError

GOAL_HELP = (
    "show the session's goal; `/goal TEXT` sets it, `/goal done` marks it met, `/goal clear`"
)


class GoalsCapability:
    def __init__(self, *, store: Callable[[], SessionStore | None]) -> None:
        self._store = store

    def __call__(self, api: ExtensionApi) -> None:
        api.register_command("goal", GOAL_HELP, self.command)
        api.register_extractor(GoalSection(self.current))
        api.register_status("goal", self.status)

    def status(self) -> str | None:
        store = self._store()
        return None if store is None else describe(latest_goal(store.branch()))

    def current(self) -> GoalCheckpoint | None:
        store = self._store()
        return None if store is None else current_goal(store.branch())

    def command(self, args: list[str]) -> str:
        store = self._store()
        if store is None:
            raise ConfigError("the agent is still starting: try again in a moment")
        word = args[0].lower() if len(args) == 1 else None
        if not args:
            return describe(latest_goal(store.branch()))
        if word == "clear":
            goal = latest_goal(store.branch())
            if goal is not None and goal.status != "cleared":
                store.append(CheckpointEntry, GoalCheckpoint(status="cleared"))
            return "No goal is set."
        if word == "done":
            goal = current_goal(store.branch())
            if goal is None:
                return describe(latest_goal(store.branch()))
            store.append(CheckpointEntry, GoalCheckpoint(text=goal.text, status="done"))
            return describe(latest_goal(store.branch()))
        store.append(CheckpointEntry, GoalCheckpoint(text=goal_text(args)))
        return describe(latest_goal(store.branch()))


def describe(goal: GoalCheckpoint | None) -> str:
    """One line for `/goal` and `/status`."""
    if goal is None or goal.status == "cleared" or goal.text is None:
        return "No goal is set."
    state = "done" if goal.status == "done" else "active"
    return f"Goal ({state}): {literal(goal.text)}"
