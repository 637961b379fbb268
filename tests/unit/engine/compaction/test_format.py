"""format_summary: layout, parse-back, section-by-section merge and fitting a budget."""

from __future__ import annotations

import pytest

from shard_core.engine.compaction import PREAMBLE, Section, format_summary, parse_summary
from shard_core.engine.compaction.file_lines import DETAILED
from shard_core.engine.compaction.merge import (
    rolling_transcript,
    rolling_turns,
    sticky_goal,
    union,
    union_files,
    union_keyed,
)


def sections(**lines: list[str]) -> list[Section]:
    policies = {
        "goal": ("Session Goal", "sticky-goal"),
        "files": ("Files And Changes", "union-files"),
        "outstanding": ("Outstanding Context", "replace"),
        "turns": ("Earlier Turns", "rolling-turns"),
        "transcript": ("Brief Transcript", "rolling-transcript"),
    }
    return [
        Section(name, title, tuple(lines.get(name, [])), policy)
        for name, (title, policy) in policies.items()
    ]


def test_layout_is_preamble_sections_separator_transcript() -> None:
    text = format_summary(
        sections(goal=["Fix it (recall: expand=[1])"], transcript=["[user #1] Fix it"])
    )
    assert text == (
        f"{PREAMBLE}\n\n## Session Goal\n- Fix it (recall: expand=[1])\n\n---\n\n"
        "## Brief Transcript\n[user #1] Fix it\n"
    )


def test_body_lines_never_pass_for_headings_and_parse_back() -> None:
    text = format_summary(
        sections(
            outstanding=["## not a heading", "two\nlines"],
            transcript=["## fake", "---", "[user #2] hi"],
        )
    )
    parsed = parse_summary(text)
    assert parsed.sections == {"Outstanding Context": ["## not a heading", "two lines"]}
    assert parsed.transcript == ["  ## fake", "  ---", "[user #2] hi"]


def test_merge_keeps_sticky_goal_unions_files_and_replaces_volatile() -> None:
    first = format_summary(
        sections(
            goal=["Build the exporter (recall: expand=[1])"],
            files=["a.py: created (recall: expand=[3])"],
            outstanding=["[ERROR] [tests] pytest — boom (recall: expand=[5])"],
            turns=["Build the exporter → 3 tool calls (recall: expand=[1])"],
            transcript=["[user #1] Build the exporter", "  $ pytest → exit 1 (#5)"],
        )
    )
    second = format_summary(
        sections(
            goal=["scope change: instead, write the importer (recall: expand=[9])"],
            files=["a.py: modified (recall: expand=[11])", "b.py: deleted (recall: expand=[12])"],
            turns=["instead, write the importer → 2 tool calls (recall: expand=[9])"],
            transcript=["[user #9] instead, write the importer"],
        ),
        first,
    )
    parsed = parse_summary(second)
    assert parsed.sections == {
        "Session Goal": [
            "Build the exporter (recall: expand=[1])",
            "scope change: instead, write the importer (recall: expand=[9])",
        ],
        "Files And Changes": [
            "a.py: created (recall: expand=[3, 11])",
            "b.py: deleted (recall: expand=[12])",
        ],
        "Earlier Turns": [
            "Build the exporter → 3 tool calls (recall: expand=[1])",
            "instead, write the importer → 2 tool calls (recall: expand=[9])",
        ],
    }
    assert parsed.transcript == [
        "[user #1] Build the exporter",
        "  $ pytest → exit 1 (#5)",
        "[user #9] instead, write the importer",
    ]


def test_previous_sections_no_extractor_produced_are_kept() -> None:
    previous = f"{PREAMBLE}\n\n## Custom Notes\n- keep me\n"
    text = format_summary(sections(goal=["g (recall: expand=[1])"]), previous)
    assert parse_summary(text).sections == {
        "Session Goal": ["g (recall: expand=[1])"],
        "Custom Notes": ["keep me"],
    }


def test_merge_policies() -> None:
    assert sticky_goal(["g1", "scope change: a"], ["g2", "scope change: b"]) == [
        "g1",
        "scope change: b",
    ]
    assert sticky_goal([], ["g2"]) == ["g2"]
    assert union(["Use tabs.", "never push"], ["use tabs. (recall: expand=[4])", "x"]) == [
        "Use tabs.",
        "never push",
        "x",
    ]
    assert union_keyed(["abc1234: one", "def5678: two"], ["abc1234: one!", "0a0a0a0: three"]) == [
        "abc1234: one!",
        "def5678: two",
        "0a0a0a0: three",
    ]
    assert union_files(
        ["a.py: created", "b.py: modified"], ["a.py: deleted", "b.py: created", "not a file line"]
    ) == ["a.py: created, deleted", "b.py: modified, created"]
    many = [f"f{i}.py: modified" for i in range(DETAILED + 5)]
    merged = union_files(many, ["f1.py: deleted", "g.py: created"])
    assert merged[:2] == [
        "also changed: f0.py, f1.py (deleted), f2.py, f3.py, f4.py, f5.py",
        "f6.py: modified",
    ]
    assert merged[-1] == "g.py: created"
    assert len(merged) == DETAILED + 1
    assert union_files(merged, []) == merged  # the compact list reads back


def test_rolling_turns_count_what_they_drop() -> None:
    previous = ["(+3 earlier turns; search them with recall)"] + [f"t{i}" for i in range(40)]
    merged = rolling_turns(previous, ["new"])
    assert merged[0] == "(+4 earlier turns; search them with recall)"
    assert merged[1:] == [f"t{i}" for i in range(1, 40)] + ["new"]


def test_rolling_transcript_starts_at_a_turn_and_keeps_the_newest() -> None:
    previous = ["[user #1] old", "  → read a.py (#2)"] + ["[user #3] " + "x" * 4000] * 2
    merged = rolling_transcript(previous, ["[user #9] new"])
    assert merged == ["[user #3] " + "x" * 4000, "[user #9] new"]


@pytest.mark.parametrize("budget", [400, 900, 2000])
def test_fitting_drops_transcript_and_old_turns_first(budget: int) -> None:
    text = format_summary(
        sections(
            goal=["the goal (recall: expand=[1])"],
            turns=[f"turn {i} " + "y" * 50 for i in range(20)],
            transcript=[f"[user #{i}] " + "z" * 100 for i in range(20)],
        ),
        max_chars=budget,
    )
    assert len(text) <= budget
    if budget >= 900:
        assert "the goal" in text


def test_fitting_cuts_the_text_as_a_last_resort() -> None:
    text = format_summary(sections(goal=["g" * 5000]), max_chars=1000)
    assert len(text) <= 1000
    assert text.endswith("…[summary cut to fit its budget; use recall]\n")


def test_secrets_in_any_line_are_redacted() -> None:
    text = format_summary(
        sections(outstanding=["curl -H 'Authorization: Bearer abcdefghijklmnop'"])
    )
    assert "abcdefghijklmnop" not in text
    assert "Bearer [REDACTED]" in text
