"""Regex recall on a time budget: explosive patterns are refused with a clear error at once, on
a 28k-entry session; what runs stops at its budget. Timings live in bench/b8_recall.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from shard_core.engine.recall import Lineage, RecallRequest, recall
from shard_core.engine.recall.patterns import nested_repetition, pattern_problem, required_literal
from shard_core.engine.recall.scan import scan
from tests.fixtures.sessions.synthetic import synthetic_session

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("regex_budget")

ENTRIES = 28_000
SLACK_S = 1.0
"""Generous: the refusal is static and takes microseconds; this only catches a hang."""


@pytest.fixture(scope="module")
def big_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    s = synthetic_session(ENTRIES - 2, seed=8)
    s.user("a" * 5_000 + "!")  # food for (a+)+$ under a backtracking engine
    s.user("x" * 20_000)
    path = tmp_path_factory.mktemp("regex") / "s-big.jsonl"
    path.write_text(s.text(), encoding="utf-8")
    with Lineage.open([path]) as lineage:  # build the cache once, outside the timed calls
        assert lineage.size == ENTRIES
    return path


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+$", "(.*a){20}", "(x|y)" * 2_000 + "z"],
    ids=["nested-plus", "counted", "10kB"],
)
def test_expensive_patterns_are_refused_with_a_clear_error(big_session: Path, pattern: str) -> None:
    started = time.monotonic()
    with Lineage.open([big_session]) as lineage:
        answer = recall(lineage, RecallRequest(query=pattern, mode="regex"))
    assert time.monotonic() - started < SLACK_S
    assert answer.error
    assert answer.text.startswith("recall: pattern too expensive: ")


def test_a_search_that_outruns_its_budget_says_so(big_session: Path) -> None:
    with Lineage.open([big_session]) as lineage:
        answer = recall(lineage, RecallRequest(query=r"\d{9}q", mode="regex"), budget_s=0.0)
    assert answer.error
    assert answer.text.startswith("recall: pattern too expensive: the search used its 0 ms budget")


def test_an_ordinary_regex_finds_the_newest_matches(big_session: Path) -> None:
    with Lineage.open([big_session]) as lineage:
        answer = recall(lineage, RecallRequest(query=r"^a{100}", mode="regex", recent=1))
    assert not answer.error
    assert answer.indices == (ENTRIES - 2,)


def test_nested_repetition_shapes() -> None:
    refused = ["(a+)+", "(.*a){20}", "(a?)+", "(?:x+)*", "((a+)b)+", "(a+b){1,3}", "(?P<n>a+)+"]
    allowed = ["(ab)+", "(a|b)*c", "(a{2})+", r"\(a+\)+", "x{2,}", "[a-z]+(foo)+", "hook|inject"]
    assert [p for p in refused if not nested_repetition(p)] == []
    assert [p for p in allowed if nested_repetition(p)] == []


def test_pattern_problems_name_the_reason() -> None:
    assert pattern_problem("fail.*build") is None
    assert pattern_problem("x" * 501) == "pattern too expensive: 501 characters (the limit is 500)"
    assert pattern_problem("(") == "invalid regex: missing ), unterminated subpattern at position 0"


def test_required_literals_prefilter_only_what_every_match_contains() -> None:
    cases = {
        "zzz+q": "zzz",
        r"hit rate: \d\.\d+": "hit rate: ",
        "(abc)def": "def",
        r"foo\.bar": "foo.bar",
        "fo*bar": "bar",
        "a|bcd": None,
        "(?i)hello": None,
        r"\d{4}-\d{2}": None,
        "abc?": None,
        "^a{100}": None,
        "ab{2,3}cdef": "cdef",
    }
    assert {p: required_literal(p) for p in cases} == cases


def test_scan_verifies_each_text_a_joined_match_touches() -> None:
    texts = [(3, "tail of one"), (2, "ab"), (1, "cd and more")]
    found = scan(r"b\W+\x00?\W*c", texts, 10)  # would only match across the join
    assert (found.hits, found.timed_out, found.scanned) == ([], False, 3)
    found = scan("one|more", texts, 1)
    assert found.hits == [(3, 8, 11)]


def test_the_session_file_is_one_json_object_a_line(big_session: Path) -> None:
    with big_session.open(encoding="utf-8") as f:
        assert json.loads(f.readline())["type"] == "session"
