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


def test_done_lines_mark_steps_done_and_nothing_else_does() -> None:
    branch = [plan_entry("p1", None, "read", "edit", "test", "commit")]
    ctx = ModeContext(branch=branch)

    def after(text: str) -> list[bool] | None:
        found = BuildMode().on_turn_end(AssistantMessage(content=[TextBlock(text=text)]), ctx)
        assert found is None or isinstance(found, PlanCheckpoint)
        return None if found is None else [s.done for s in found.steps]

    assert after("Edited it.\nDone: step 2") == [False, True, False, False]
    assert after("**Done:** steps 1-2 and 4") == [True, True, False, True]
    assert after("- done: steps 3, 99") == [False, False, True, False]  # no step 99
    assert after("I am done: step back and look") is None
    assert after("Step 2 is next; not Done: step 2 inline") is None
    assert after("No step finished yet.") is None
