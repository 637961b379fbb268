"""B9's fact-recall harness and pi converter (pi-vcc itself is not run: it needs node and a
checkout; the harness's scoring and conversion are what a regression would break)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from bench import _pi_vcc as pi
from bench._planted import PLANTED, facts_of, score, write_planted
from bench._varied import (
    JEST_FAIL,
    JEST_SEP,
    VARIED_PLANTED,
    varied_facts,
    varied_session,
    write_varied,
)
from bench.b9_vs_pi_vcc import fold


def test_shard_summary_recalls_every_planted_fact_of_a_1k_session(tmp_path: Path) -> None:
    _, details, facts, _ = fold(write_planted(tmp_path / "s.jsonl", 1_000, seed=1_000))
    assert set(facts.needles) == {name for name, *_ in PLANTED} | {"last failure", "last commit"}
    result = score(details.summary, facts)
    assert result.hits == dict.fromkeys(facts.needles, True)
    assert result.files_total > 20
    assert result.files_named > 0


def test_score_misses_what_a_summary_does_not_say(tmp_path: Path) -> None:
    path = write_planted(tmp_path / "s.jsonl", 600, seed=3)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    facts = facts_of(lines)
    empty = score("nothing here", facts)
    assert not any(empty.hits.values())
    assert empty.files_named == 0
    assert empty.recall == 0


def test_converter_writes_one_pi_message_per_message_and_tool_result(tmp_path: Path) -> None:
    path = write_planted(tmp_path / "s.jsonl", 300, seed=2)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    stop = lines[200]["id"]
    out = [json.loads(x) for x in pi.to_pi_jsonl(lines, stop).splitlines()]
    assert out[0]["type"] == "session"
    assert out[0]["version"] == 3
    assert len(out) == 200  # the header and the 199 entries before `stop`, all messages here
    roles = {e["message"]["role"] for e in out[1:]}
    assert roles == {"user", "assistant", "toolResult"}
    calls = [c for e in out[1:] for c in e["message"]["content"] if c.get("type") == "toolCall"]
    assert calls
    assert all(isinstance(c["arguments"], dict) for c in calls)
    assert all(e["parentId"] == p["id"] for p, e in pairwise(out[1:]))


def test_the_varied_generator_is_seeded_and_shaped_unlike_the_planted_one() -> None:
    s = varied_session(1_000, seed=1_000)
    assert s.text() == varied_session(1_000, seed=1_000).text()
    assert s.text() != varied_session(1_000, seed=1_001).text()
    assert len(s.lines) == 1_000
    calls = [
        b for x in s.lines if x["type"] == "message"
        for b in x["details"]["message"]["content"] if b["type"] == "tool_call"
    ]  # fmt: skip
    assert len({c["name"] for c in calls}) == 13
    sizes = [len(x["details"]["result"]["content"][0]["text"]) for x in s.lines
             if x["type"] == "tool_result"]  # fmt: skip
    assert min(sizes) < 50
    assert max(sizes) > 100_000
    details = [x["details"] for x in s.lines if x["type"] == "message"]
    assert any(d.get("steer_id") for d in details)
    assert any(d.get("context") for d in details)
    assert any(sum(b["type"] == "tool_call" for b in d["message"]["content"]) > 1 for d in details)
    facts = varied_facts(s.lines)
    assert set(facts.needles) == {name for name, *_ in VARIED_PLANTED} | {
        "last failure", "last commit",
    }  # fmt: skip
    assert len(facts.files) >= 42


def test_varied_facts_take_the_last_failure_of_any_runner() -> None:
    s = varied_session(300, seed=1)
    s.bash("npx jest", f"  {JEST_FAIL} a.test.ts {JEST_SEP} b_1", 1)
    assert varied_facts(s.lines).needles["last failure"] == (f"a.test.ts {JEST_SEP} b_1",)
    s.bash("cargo test", "test a::b_2 ... FAILED", 101)
    assert varied_facts(s.lines).needles["last failure"] == ("a::b_2",)


def test_shard_summary_of_a_varied_session_recalls_every_fact_and_every_changed_path(
    tmp_path: Path,
) -> None:
    _, details, facts, _ = fold(write_varied(tmp_path / "v.jsonl", 1_000, 1_000), varied_facts)
    result = score(details.summary, facts)
    assert result.hits == dict.fromkeys(facts.needles, True)
    assert result.files_named == result.files_total >= 42
