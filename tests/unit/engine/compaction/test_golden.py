"""Golden summaries: three realistic sessions compact to the checked-in text, byte for byte.

After an intended format change: `python -m tests.fixtures.sessions.golden --update`, then
review the diff of tests/fixtures/sessions/golden/.
"""

from __future__ import annotations

import pytest

from tests.fixtures.sessions.golden import CASES, golden_path


@pytest.mark.parametrize("name", sorted(CASES))
def test_summary_matches_golden(name: str) -> None:
    expected = golden_path(name).read_text(encoding="utf-8")
    assert CASES[name]() == expected


def test_goldens_show_what_each_session_is_about() -> None:
    bugfix = golden_path("bugfix").read_text(encoding="utf-8")
    assert "[RESOLVED] [tests] python -m pytest -q tests/test_timeparse.py" in bugfix
    assert "- 3f2a9c1: Fix parse_duration for compound units (main)" in bugfix
    exploration = golden_path("exploration").read_text(encoding="utf-8")
    assert "- scope change: Actually, forget the diagram." in exploration
    assert "- [RESOLVED] [edit] edit src/cache/keys.py: old_string not found" in exploration
    assert "then answered: Keys come from cache_key()" in exploration  # a split turn rejoined
    prefs = golden_path("preferences").read_text(encoding="utf-8")
    assert "- Never push to main directly; use a feature branch." in prefs
    assert "- plan: 3/4 steps done" in prefs
    assert "sk-proj-" not in prefs
    assert "OPENAI_API_KEY=[REDACTED]" in prefs
