"""PlanMode filters to read-only tools, votes down the rest and extracts the plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shard_core.contracts import ModeContext
from shard_core.engine.modes import BuildMode, PlanMode, bundled_modes, extract_plan
from shard_core.types import AssistantMessage, Deny, PlanCheckpoint, PlanStep, TextBlock


@dataclass
class FakeTool:
    name: str
    read_only: bool
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)

    async def execute(self, input, ctx):  # pragma: no cover - never run
        raise AssertionError


TOOLS = [
    FakeTool("read", True),
    FakeTool("write", False),
    FakeTool("grep", True),
    FakeTool("bash", False),
]
EMPTY = ModeContext(branch=[])

REPLY = """I looked at the parser.

## Implementation Plan

1. Add `parse_rule` to `rules.py`
   with a ConfigError for bad input
2. Match argv words, not the raw string
   - prefix rules end in `:*`
3) Write tests

## Risks
- none
"""


def reply(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextBlock(text=text)])


def test_plan_mode_keeps_only_read_only_tools() -> None:
    assert [t.name for t in PlanMode().filter_tools(TOOLS)] == ["read", "grep"]


def test_plan_mode_asks_for_the_plan_section() -> None:
    section = PlanMode().prompt_section(EMPTY)

    assert section is not None
    assert "## Implementation Plan" in section


def test_plan_mode_votes_down_mutating_tools() -> None:
    mode = PlanMode()

    vote = mode.vote(FakeTool("write", False), {"path": "a"})

    assert isinstance(vote, Deny)
    assert "plan mode is read-only" in vote.reason
    assert mode.vote(FakeTool("read", True), {"path": "a"}) is None


def test_plan_mode_extracts_the_ordered_steps() -> None:
    checkpoint = PlanMode().on_turn_end(reply(REPLY), EMPTY)

    assert checkpoint == PlanCheckpoint(
        steps=[
            PlanStep(text="Add `parse_rule` to `rules.py`\nwith a ConfigError for bad input"),
            PlanStep(text="Match argv words, not the raw string\n- prefix rules end in `:*`"),
            PlanStep(text="Write tests"),
        ],
        text=REPLY[REPLY.index("## Implementation Plan") : REPLY.index("## Risks")].strip(),
    )


def test_no_plan_section_no_checkpoint() -> None:
    assert PlanMode().on_turn_end(reply("Just chatting.\n- a list\n"), EMPTY) is None
    assert extract_plan("## Implementation Plan\n\nNothing to do.\n") is None


def test_bullets_checkboxes_and_the_last_section_win() -> None:
    text = (
        "## Implementation plan\n1. old\n\n"
        "### Implementation Plan:\n- [x] done already\n* next\n+ last\n"
        "```\n# a comment, not a heading\n```\nAfterword.\n"
    )

    plan = extract_plan(text)

    assert plan is not None
    assert plan.steps == [
        PlanStep(text="done already", done=True),
        PlanStep(text="next"),
        PlanStep(text="last"),
    ]


def test_bundled_modes() -> None:
    modes = bundled_modes()

    assert [m.name for m in modes] == ["build", "plan"]
    assert isinstance(modes[0], BuildMode)
    assert all(m.description for m in modes)
