"""The goals capability, installed through the ExtensionApi like any extension.

    goals = GoalsCapability(store=lambda: session_store)
    await host.install("shard.goals", goals)
    goals.bind(agent.session)  # status events carry the goal; changes are goal_update events

It registers `/goal` (`/goal TEXT` sets the objective, `/goal` shows it, `/goal done` marks it
met, `/goal clear` drops it), the Session Goal section compaction writes (the goal verbatim
while one is active), the `goal_report` tool, and, with `goal.continue`, an `after_turn` hook
that prompts another turn until the goal is reported met or a bound is hit. Each change is a
`GoalCheckpoint` in the session log, so a resumed or forked session has it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from shard_core.capabilities.commands import literal
from shard_core.capabilities.goals.goal import current_goal, goal_text, latest_goal, past_goals
from shard_core.capabilities.goals.pursuit import (
    REPORT,
    GoalReportTool,
    continue_prompt,
    hit_bound,
)
from shard_core.capabilities.goals.summary import GoalSection
from shard_core.contracts import ExtensionApi
from shard_core.engine.config import GoalConfig
from shard_core.engine.events import EventStream
from shard_core.engine.hook_points import AFTER_TURN, TurnDone
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import GoalBound, GoalUpdateEvent, ToolResultEvent
from shard_core.types import CheckpointEntry, GoalCheckpoint, JsonObject
from shard_core.types.errors import ConfigError

GOAL_HELP = (
    "show the session's goal; `/goal TEXT` sets it, `/goal done` marks it met, `/goal clear`"
)
Action = Literal["set", "done", "cleared", "continued", "stopped"]


class GoalSession(Protocol):
    """What the goals capability uses of the session it is bound to (AgentSession is one):
    its status events carry `goal`, its events announce each change."""

    goal: str | None

    @property
    def events(self) -> EventStream: ...

    def emit_status(self, message: str | None = None) -> object: ...


class GoalsCapability:
    def __init__(self, *, store: Callable[[], SessionStore | None]) -> None:
        self._store = store
        self._session: GoalSession | None = None
        self._settings: Callable[[], JsonObject] = dict
        self._blocked: set[str] = set()
        """turns in which the model reported it cannot go on: no turn follows them"""

    def __call__(self, api: ExtensionApi) -> None:
        api.register_command("goal", GOAL_HELP, self.command)
        api.register_extractor(GoalSection(self.current, self.past))
        api.register_status("goal", self.status)
        api.register_tool(GoalReportTool(self.current))
        api.on("tool_result", self._tool_result)
        api.on(AFTER_TURN, self.after_turn)
        self._settings = lambda: api.settings("goal")

    def bind(self, session: GoalSession, *, initial: str | None = None) -> None:
        """The session whose status events carry the goal and whose events announce changes;
        `initial` (a create request's goal) is set when the branch never had a goal, so a
        restarted agent does not undo a later `/goal` or `/goal clear`."""
        self._session = session
        store = self._store()
        if initial is not None and store is not None and latest_goal(store.branch()) is None:
            self.set_goal(initial)
        goal = self.current()
        session.goal = goal.text if goal else None

    # ------------------------------------------------------------ reading

    def status(self) -> str | None:
        store = self._store()
        return None if store is None else describe(latest_goal(store.branch()))

    def current(self) -> GoalCheckpoint | None:
        store = self._store()
        return None if store is None else current_goal(store.branch())

    def past(self) -> set[str]:
        store = self._store()
        return set() if store is None else past_goals(store.branch())

    def config(self) -> GoalConfig:
        return GoalConfig.model_validate(self._settings())

    # ------------------------------------------------------------ changing

    def set_goal(self, text: str, source: Literal["user", "model"] = "user") -> GoalCheckpoint:
        """Set the goal (`text` is checked against the cap first: a ConfigError changes
        nothing)."""
        goal = GoalCheckpoint(text=goal_text([text]), source=source)
        self._record(goal, "set")
        return goal

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
                self._record(GoalCheckpoint(status="cleared"), "cleared")
            return "No goal is set."
        if word == "done":
            goal = current_goal(store.branch())
            if goal is not None:
                self._record(GoalCheckpoint(text=goal.text, status="done"), "done")
            return describe(latest_goal(store.branch()))
        self._record(GoalCheckpoint(text=goal_text(args)), "set")
        return describe(latest_goal(store.branch()))

    def _record(self, goal: GoalCheckpoint, action: Action, message: str = "") -> None:
        store = self._store()
        if store is None:
            raise ConfigError("the agent is still starting: try again in a moment")
        store.append(CheckpointEntry, goal)
        store.sync()
        self._announce(goal, action, message=message)

    def _announce(
        self,
        goal: GoalCheckpoint,
        action: Action,
        *,
        bound: GoalBound | None = None,
        message: str = "",
    ) -> None:
        session = self._session
        if session is None:
            return
        session.events.emit(
            GoalUpdateEvent,
            text=goal.text,
            status=goal.status,
            source=goal.source,
            action=action,
            bound=bound,
            message=message,
        )
        active = goal.text if goal.status == "active" else None
        if session.goal != active:
            session.goal = active
            session.emit_status()

    # ------------------------------------------------------------ goal.continue

    def _tool_result(self, event: ToolResultEvent) -> None:
        goal = self.current()
        if event.name != REPORT or event.result.is_error or goal is None:
            return
        summary = str(event.result.details.get("summary", ""))
        if event.result.details.get("status") == "met":
            met = GoalCheckpoint(text=goal.text, status="done", source="model")
            self._record(met, "done", message=summary)
        else:
            self._blocked.add(event.turn_id)
            self._announce(goal, "stopped", message=f"blocked: {summary}")

    def after_turn(self, done: TurnDone) -> str | None:
        """The prompt of one more turn while the goal is active and no bound is hit."""
        blocked = done.end.turn_id in self._blocked
        self._blocked.discard(done.end.turn_id)
        goal = self.current()
        config = self.config()
        if blocked or goal is None or goal.text is None or not config.continue_:
            return None
        if done.end.reason != "completed":  # stopped, failed, or out of steps: the person decides
            return None
        hit = hit_bound(config, done)
        if hit is not None:
            bound, words = hit
            self._announce(goal, "stopped", bound=bound, message=f"stopped: {words}")
            return None
        turn = done.turns + 1
        self._announce(goal, "continued", message=f"turn {turn} of at most {config.max_turns}")
        return continue_prompt(goal.text, turn, config)


def describe(goal: GoalCheckpoint | None) -> str:
    """One line for `/goal` and `/status`."""
    if goal is None or goal.status == "cleared" or goal.text is None:
        return "No goal is set."
    state = "done" if goal.status == "done" else "active"
    return f"Goal ({state}): {literal(goal.text)}"
