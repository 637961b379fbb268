"""gates.any_of: one search over many texts answers like a test of each text alone."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.engine.compaction.gates import any_of

WORDS = ("key", "token", "rm", "please use")
PATTERNS = (re.compile(r"\b(?:rm|mv)\b"), re.compile(r"please\s+(?:use|run)"))
TEXT = st.lists(
    st.one_of(
        st.sampled_from(["KEY", "to", "ken", "rm", " ", "\n", "please", "use", "mv", "x"]),
        st.text(max_size=4),
    ),
    max_size=8,
).map("".join)


def _one(text: str, lower: bool) -> bool:
    seen = text.lower() if lower else text
    return any(w in seen for w in WORDS) or any(p.search(seen) for p in PATTERNS)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, max_size=12), lower=st.booleans())
def test_any_of_answers_like_each_text_alone(texts: list[str], lower: bool) -> None:
    assert any_of(texts, WORDS, PATTERNS, lower=lower) == [_one(t, lower) for t in texts]


def test_a_word_at_the_end_of_one_text_and_the_start_of_the_next_is_not_found() -> None:
    assert any_of(["to", "ken", "r", "m"], ("token", "rm")) == [False] * 4
    assert any_of(["", "token", ""], ("token",)) == [False, True, False]
