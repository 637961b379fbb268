"""Secret redaction for summaries: API keys, tokens, passwords and private key blocks.

One compiled alternation, applied to every excerpt before it is cut and to the finished summary,
so a key split by a cut is caught in the window it came from. Redaction keeps the name of what
was hidden (`password=[REDACTED]`) because "a password was set here" is itself useful context.
"""

from __future__ import annotations

import functools
import re

REDACTED = "[REDACTED]"

_PATTERNS = (
    # private key blocks, also when an excerpt holds only their start or their end
    r"(?P<pem>-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]*PRIVATE"
    r" KEY(?: BLOCK)?-----|.*\Z))",
    r"(?P<pemtail>(?m:^)(?:[A-Za-z0-9+/=]{16,}[ \t]*\n\s*)+"
    r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)",
    # provider and platform keys with a recognisable prefix
    r"(?P<key>\b(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-(?:proj-|svcacct-|live_|test_)?[A-Za-z0-9_\-]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{16,}"
    r"|xox[abeoprs]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{20,})(?![A-Za-z0-9_\-]))",
    # Authorization: Bearer <token> / Basic <credentials>
    r"(?P<bearer>\b(?:bearer|basic)\s+)(?P<bearer_value>[A-Za-z0-9._~+/\-]{12,}=*)",
    # name=value, name: value, "name": "value" (GITHUB_TOKEN=…, db_password: …, "api_key": "…")
    r"(?P<assign>\b(?:[A-Za-z0-9]+[_-])*(?:password|passwd|passphrase|secret|token|api[_-]?key"
    r"|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|pwd)(?:[_-]?key)?"
    r"[\"']?\s*[:=]\s*[\"']?)(?P<assign_value>[^\s\"',;&)}\]]{4,})",
    # credentials inside a URL: scheme://user:password@host
    r"(?P<url>\b[a-z][a-z0-9+.\-]{0,15}://[^\s:/@]+:)(?P<url_value>[^\s@/]{3,})(?=@)",
)
_FLAGS = re.IGNORECASE | re.DOTALL
_SECRET = re.compile("|".join(_PATTERNS), _FLAGS)
_CASED_PREFIXES = (
    "sk-",
    "gh",
    "github_pat_",
    "glpat-",
    "xox",
    "AIza",
    "AKIA",
    "ASIA",
    "hf_",
    "npm_",
)


def _replace(match: re.Match[str]) -> str:
    groups = match.groupdict()  # only the alternatives _secret_for kept have their groups
    if groups.get("pem") is not None or groups.get("pemtail") is not None:
        return "[REDACTED PRIVATE KEY]"
    key = groups.get("key")
    if key is not None:
        # IGNORECASE lets `Bearer`/`PASSWORD` match; real key prefixes are case-exact
        return REDACTED if key.startswith(_CASED_PREFIXES) else key
    for name in ("bearer", "assign", "url"):
        if groups.get(name) is not None:
            value = groups.get(f"{name}_value") or ""
            if value == REDACTED or value.startswith("[REDACTED"):
                return match.group(0)
            return groups[name] + REDACTED
    return match.group(0)  # pragma: no cover - every alternative is named


_KEY_HINTS = (
    "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "aiza", "akia",
    "asia", "hf_", "npm_",
)  # fmt: skip
_PATTERN_HINTS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("key",), ("private key",), ("-----",)),  # pem: -----BEGIN ... PRIVATE KEY
    (("key",), ("private key",), ("-----",)),  # pemtail: -----END ... PRIVATE KEY
    (_KEY_HINTS,),
    (("bearer", "basic"),),
    (("pass", "secret", "token", "key", "pwd"), (":", "=")),  # assign: api_key=…, token: …
    (("://",),),  # url
)
"""Per alternative of _PATTERNS, what every match holds: one substring (lowercase) of each
tuple."""
_ASSIGN = 4
_ASSIGN_CORE = re.compile(r"(?:pass|secret|token|key|pwd)[\w-]*[\"']?\s*[:=]")
"""What every `assign` match holds in the lowered text: a name ending its secret word (and
`[_-]key`) right before `:` or `=`. A word and a colon anywhere in a line is common (`token.py:
modified`); this test keeps such lines from the assign regex, which tries every position."""
_HINTS = tuple(dict.fromkeys(h for needs in _PATTERN_HINTS for h in needs[0]))
_GATE = re.compile("|".join(re.escape(h) for h in _HINTS))
"""Does the lowered text hold any hint at all: one scan instead of a test per hint. (Texts
without one are returned as they are: `gates.any_of(texts, HINTS)` finds them in bulk.)"""
HINTS = _HINTS


FOLDING_CHARS = (
    "\u00df\u0130\u0131\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
"""The non-ASCII characters that IGNORECASE matches with an ASCII one, or whose lower or upper
case holds one (tests/unit/engine/compaction/test_redact.py checks every code point). Text
without them matches the patterns' ASCII letters only with ASCII letters, so the hints in its
lowered form tell which alternatives can match, as for ASCII text."""
_FOLDING = re.compile(f"[{FOLDING_CHARS}]")


@functools.cache
def _secret_for(alternatives: tuple[int, ...]) -> re.Pattern[str]:
    return re.compile("|".join(_PATTERNS[i] for i in alternatives), _FLAGS)


def redact(text: str) -> str:
    """`text` with secrets replaced by `[REDACTED]`; idempotent.

    Most text holds no hint and is returned as is. Otherwise only the alternatives whose hints
    occur are tried: one that cannot match anywhere changes no match when left out, and the
    full alternation is several times slower. That holds unless IGNORECASE folds one of the
    text's letters onto an ASCII one (the long s onto `s`): such text gets the full alternation."""
    lowered = text.lower()
    if _GATE.search(lowered) is None:
        return text
    return _redact_hinted(text, lowered)


def redact_hinted(text: str, lowered: str | None = None) -> str:
    """`redact(text)` for a text already known to hold a hint (`gates.any_of(texts, HINTS)`
    found them in bulk): the same, without looking for the hint again. `lowered`:
    `text.lower()`, when the caller has it (a `gates.Haystack` does)."""
    return _redact_hinted(text, text.lower() if lowered is None else lowered)


def _redact_hinted(text: str, lowered: str) -> str:
    if not text.isascii() and _FOLDING.search(text) is not None:
        return _SECRET.sub(_replace, text)
    alternatives = _hinted(lowered)
    return _secret_for(alternatives).sub(_replace, text) if alternatives else text


def _hinted(lowered: str) -> tuple[int, ...]:
    """The alternatives whose every need has a hint in the text (plain loops: this runs for
    every line of a summary that mentions a key or a token)."""
    found: list[int] = []
    for i, needs in enumerate(_PATTERN_HINTS):
        for hints in needs:
            for hint in hints:
                if hint in lowered:
                    break
            else:
                break  # no hint for this need: the alternative cannot match
        else:
            if i != _ASSIGN or _ASSIGN_CORE.search(lowered) is not None:
                found.append(i)
    return tuple(found)
