"""Fact-recall sessions: synthetic coding sessions with known facts planted, and a scorer.

The filler is `tests/fixtures/sessions/synthetic.py`'s mix (reads, edits, test runs, greps,
commits, long logs, a user turn every ~6 steps). Planted at fixed fractions of the session:

  goal          the first user message
  preference    a stated working preference (~15 %)
  scope         a change of scope (~35 %)
  decision      a design decision, said by the assistant (~55 %)
  question      an open question left undecided (~80 %)

Worked out from the entries a compaction folds (ground truth, not planted):

  last failure  the test id of the last failing test run
  last commit   the hash of the last `git commit`
  files         every path an edit or write changed (scored as the share named)

`score(summary, facts)` checks each fact's needles (case-insensitive substrings) in a summary.
The same scorer reads Shard's and pi-vcc's summaries.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fixtures.sessions.synthetic import RawSession, _sentence, _step  # pyright: ignore[reportPrivateUsage]

PLANTED: tuple[tuple[str, float, str, str, tuple[str, ...]], ...] = (
    # name, where, role, text, needles
    ("goal", 0.0, "user",
     "Goal: make the token refresh survive clock skew of up to five minutes in the auth service.",
     ("clock skew",)),
    ("preference", 0.15, "user",
     "From now on always run ruff before each commit, and I prefer small focused diffs.",
     ("ruff before each commit",)),
    ("scope", 0.35, "user",
     "Change of plan: also cover the websocket reconnect path; the mobile client is out of "
     "scope now.", ("websocket reconnect",)),
    ("decision", 0.55, "assistant",
     "Decision: we will keep the SQLite backend rather than migrate to Postgres, since the "
     "lock contention is fixed.", ("sqlite backend",)),
    ("question", 0.8, "user",
     "Open question: should the retry budget be per host or global? Leave it undecided for now.",
     ("per host or global",)),
)  # fmt: skip

FAILED = re.compile(r"FAILED (\S+::\S+)")
COMMIT = re.compile(r"\[\w+ ([0-9a-f]{7,})\]")


def planted_session(entries: int, seed: int = 0) -> RawSession:
    """A session of exactly `entries` entries with the PLANTED facts at their fractions."""
    rng = random.Random(seed)
    s = RawSession(f"s-planted-{entries}")
    todo = list(PLANTED)
    i = 0
    while len(s.lines) < entries - 2:
        if todo and len(s.lines) >= todo[0][1] * entries:
            _, _, role, text, _ = todo.pop(0)
            if role == "user":
                s.user(text)
            else:
                s.say(text)
        elif i % 6 == 0:
            s.user(f"Please {_sentence(rng, rng.randint(5, 25))}.")
        else:
            _step(s, rng, i)
        i += 1
    while len(s.lines) < entries:
        s.user(_sentence(rng, 5))
    del s.lines[entries:]
    return s


def write_planted(path: Path, entries: int, seed: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(planted_session(entries, seed).text(), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Facts:
    needles: dict[str, tuple[str, ...]]
    """fact name → the substrings a summary must hold (all of them) to recall it"""
    files: tuple[str, ...]


def _text(line: dict[str, Any]) -> str:
    details = line.get("details") or {}
    if line.get("type") == "tool_result":
        content = (details.get("result") or {}).get("content") or []
    else:
        content = (details.get("message") or {}).get("content") or []
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


Planted = tuple[tuple[str, float, str, str, tuple[str, ...]], ...]
"""(name, where, role, text, needles) of each planted fact."""


def facts_of(
    lines: list[dict[str, Any]],
    planted: Planted = PLANTED,
    *,
    failures: tuple[re.Pattern[str], ...] = (FAILED,),
    changing: tuple[str, ...] = ("edit", "write"),
) -> Facts:
    """The facts of the folded `lines` (store JSON objects): the `planted` ones present, the
    last failing test (the last match of any of `failures` in a bash output), the last commit,
    the files a successful call of a `changing` tool named."""
    texts = [_text(x) for x in lines]
    joined = "\n".join(texts)
    needles = {name: n for name, _, _, text, n in planted if text in joined}
    last_fail = last_commit = None
    files: dict[str, None] = {}
    calls: dict[str, dict[str, Any]] = {}
    for line, text in zip(lines, texts, strict=True):
        details = line.get("details") or {}
        if line.get("type") == "message":
            for block in (details.get("message") or {}).get("content") or []:
                if block.get("type") == "tool_call":
                    calls[block["id"]] = block
        elif line.get("type") == "tool_result":
            call = calls.get(details.get("tool_call_id", ""), {})
            result = details.get("result") or {}
            args = call.get("input") or {}
            if call.get("name") in changing and not result.get("is_error"):
                files[str(args.get("path"))] = None
            if call.get("name") == "bash":
                found = [m for p in failures for m in p.finditer(text)]
                if found:
                    last_fail = max(found, key=lambda m: m.start()).group(1)
                if "git commit" in str(args.get("command")) and (m := COMMIT.search(text)):
                    last_commit = m.group(1)
    if last_fail:
        needles["last failure"] = (last_fail,)
    if last_commit:
        needles["last commit"] = (last_commit,)
    return Facts(needles, tuple(files))


@dataclass(frozen=True)
class Score:
    hits: dict[str, bool]
    files_named: int
    files_total: int

    @property
    def recall(self) -> float:
        """The share of facts recalled; the files count as one fact, scored by their share."""
        files = self.files_named / self.files_total if self.files_total else 1.0
        return (sum(self.hits.values()) + files) / (len(self.hits) + 1)


def score(summary: str, facts: Facts) -> Score:
    low = summary.lower()
    hits = {name: all(n.lower() in low for n in needles) for name, needles in facts.needles.items()}
    named = sum(1 for path in facts.files if path.lower() in low)
    return Score(hits, named, len(facts.files))
