"""B9's fact-recall harness and pi converter (pi-vcc itself is not run: it needs node and a
checkout; the harness's scoring and conversion are what a regression would break)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from bench import _pi_vcc as pi
from bench._planted import PLANTED, facts_of, score, write_planted
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
