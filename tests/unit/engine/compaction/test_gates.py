"""gates.any_of: one search over many texts answers like a test of each text alone."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.engine.compaction.gates import Haystack, any_of

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


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, max_size=12), lower=st.booleans())
def test_a_haystack_answers_every_gate_like_any_of(texts: list[str], lower: bool) -> None:
    hay = Haystack(texts, lower=lower)
    assert hay.texts == texts
    assert hay.ascii == all(t.isascii() for t in texts)
    assert [hay.text(i) for i in range(len(texts))] == [t.lower() if lower else t for t in texts]
    for words, patterns in ((WORDS, PATTERNS), (("rm",), ()), ((), PATTERNS[:1])):
        assert hay.any_of(words, patterns) == any_of(texts, words, patterns, lower=lower)
        assert hay.any_of(words, patterns) == [
            any(w in (t.lower() if lower else t) for w in words)
            or any(p.search(t.lower() if lower else t) for p in patterns)
            for t in texts
        ]


def test_a_haystack_lowers_text_whose_lowering_changes_its_length() -> None:
    texts = ["\u0130 KEY", "token", "K\u212aEY"]  # İ lowers to two characters; K (Kelvin) to k
    assert not Haystack(texts).ascii
    assert Haystack(texts).any_of(("key", "token", "kkey")) == [True, True, True]
    assert [Haystack(texts).text(i) for i in range(3)] == [t.lower() for t in texts]
