"""BuildMode: all tools, the latest plan on the given branch, no prompt change without one."""

from __future__ import annotations

from shard_core.contracts import ModeContext
from shard_core.engine.modes import BuildMode
from shard_core.types import (
    AssistantMessage,
    CheckpointEntry,
    MessageDetails,
    MessageEntry,
    ModeCheckpoint,
    PlanCheckpoint,
    PlanStep,
    TextBlock,
)
from tests.unit.engine.modes.test_plan_mode import TOOLS


def plan_entry(entry_id: str, parent: str | None, *steps: str) -> CheckpointEntry:
    details = PlanCheckpoint(steps=[PlanStep(text=s) for s in steps], text="## Implementation Plan")
    return CheckpointEntry(id=entry_id, parentId=parent, ts=1.0, details=details)


def message_entry(entry_id: str, parent: str | None) -> MessageEntry:
    message = AssistantMessage(content=[TextBlock(text="hi")])
    return MessageEntry(
        id=entry_id, parentId=parent, ts=1.0, details=MessageDetails(message=message)
    )


def test_build_mode_keeps_every_tool_and_abstains() -> None:
    mode = BuildMode()

    assert mode.filter_tools(TOOLS) == TOOLS
    assert mode.vote(TOOLS[1], {}) is None
    assert mode.on_turn_end(AssistantMessage(content=[]), ModeContext(branch=[])) is None


def test_the_latest_plan_on_the_branch_is_the_active_plan() -> None:
    branch = [
        plan_entry("e1", None, "old step"),
        message_entry("e2", "e1"),
        plan_entry("e3", "e2", "first", "second"),
        CheckpointEntry(id="e4", parentId="e3", ts=2.0, details=ModeCheckpoint(mode="build")),
        message_entry("e5", "e4"),
    ]

    section = BuildMode().prompt_section(ModeContext(branch=branch))

    assert section is not None
    assert section.startswith("## Active Plan\n")
    assert section.endswith("1. first\n2. second")
    assert "old step" not in section


def test_no_plan_no_change() -> None:
    branch = [message_entry("e1", None), message_entry("e2", "e1")]

    assert BuildMode().prompt_section(ModeContext(branch=branch)) is None
    assert BuildMode().prompt_section(ModeContext(branch=[])) is None


def test_an_off_branch_plan_never_appears() -> None:
    # The plan e2 sits on a sibling branch; the engine passes only the active branch e1 -> e3.
    active = [message_entry("e1", None), message_entry("e3", "e1")]

    assert BuildMode().prompt_section(ModeContext(branch=active)) is None


def test_done_steps_are_marked() -> None:
    details = PlanCheckpoint(steps=[PlanStep(text="a", done=True), PlanStep(text="b")], text="x")
    entry = CheckpointEntry(id="e1", ts=1.0, details=details)

    section = BuildMode().prompt_section(ModeContext(branch=[entry]))

    assert section is not None
    assert section.endswith("1. a (done)\n2. b")
