"""Secret redaction: what is hidden, what is left alone, and that it is idempotent."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shard_core.engine.compaction import redact
from shard_core.engine.compaction.excerpts import clip, head_tail
from shard_core.engine.compaction.redact import (  # pyright: ignore[reportPrivateUsage]
    _HINTS,
    _SECRET,
    FOLDING_CHARS,
    _replace,
    redact_hinted,
)

CASES = [
    (
        "export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnop_q",
        "export ANTHROPIC_API_KEY=[REDACTED]",
    ),
    ("key sk-proj-ABCDEFGHIJKLMNOPQRSTUV123 here", "key [REDACTED] here"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token [REDACTED]"),
    ("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "Authorization: Bearer [REDACTED]"),
    ("password=hunter22", "password=[REDACTED]"),
    ('db_password: "s3cr3tpw"', 'db_password: "[REDACTED]"'),
    ('{"api_key": "abcd1234efgh"}', '{"api_key": "[REDACTED]"}'),
    ("GITHUB_TOKEN=xyz12345 make", "GITHUB_TOKEN=[REDACTED] make"),
    ("secret_key = 'abcdefg'", "secret_key = '[REDACTED]'"),
    ("https://user:pa55word@github.com/x", "https://user:[REDACTED]@github.com/x"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\nafter",
        "[REDACTED PRIVATE KEY]\nafter",
    ),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "[REDACTED PRIVATE KEY]"),
    (
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldY\n"
        "-----END PRIVATE KEY-----",
        "[REDACTED PRIVATE KEY]",
    ),
]
KEPT = [
    "max_tokens: 4096",
    "author=John",
    "token refresh logic",
    "SK-not-a-key-really-long-string",
    "the password is wrong",
    "use a basic approach",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_secrets_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_a_key_straddling_an_excerpt_cut_is_still_redacted() -> None:
    key = "sk-ant-api03-" + "Q" * 40
    text = "x" * 170 + " " + key + " " + "y" * 5000
    assert "QQQQ" not in clip(text, 200)
    assert "QQQQ" not in head_tail(text, 200, 100)
    assert "QQQQ" not in head_tail("y" * 5000 + " " + key + " " + "x" * 70, 200, 100)


PIECES = st.sampled_from(
    [
        "token", "TOKEN=abcd1234", "api_key: 'zzzz9999'", "Bearer abcdefghijklmnop", "pass",
        "sk-ant-abcdefgh123", "ghp_abcdefghijklmnopqrstuvwxyz", "https://u:pw123@h", "key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----END PRIVATE KEY-----", "secret",
        "AKIAIOSFODNN7EXAMPLE", "\u017fecret=abcd", "bas\u0131c abcdefghijklmn", " ", "\n", "=",
        ":", "_", "-",
    ]
)  # fmt: skip
"""Secrets, hints and separators; `\u017f` and `\u0131` fold onto ASCII under IGNORECASE."""
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_trying_only_the_hinted_alternatives_redacts_like_the_full_pattern(text: str) -> None:
    full = _SECRET.sub(_replace, text) if any(h in text.lower() for h in _HINTS) else text
    assert redact(text) == full


def test_the_folding_characters_are_every_one_ignorecase_relates_to_ascii() -> None:
    ascii_like = re.compile(r"[a-z0-9_\-:=/\"'. ]", re.IGNORECASE)
    found = [
        c
        for c in map(chr, range(0x80, 0x110000))
        if ascii_like.match(c) or any(x.isascii() for x in c.lower() + c.upper())
    ]
    assert "".join(found) == FOLDING_CHARS


NON_ASCII = st.sampled_from(["→", "…", "✗", "é", "日本", "\u017fecret=abcd", "\u212aey: x"])
MIXED = st.lists(st.one_of(PIECES, NON_ASCII, st.text(max_size=6)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=MIXED)
def test_text_beyond_ascii_is_redacted_like_the_full_pattern(text: str) -> None:
    hinted = any(h in text.lower() for h in _HINTS)
    full = _SECRET.sub(_replace, text) if hinted else text
    assert redact(text) == full
    if hinted:
        assert redact_hinted(text) == full
