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
    (("key",),),  # pem: ... PRIVATE KEY
    (("key",),),  # pemtail
    (_KEY_HINTS,),
    (("bearer", "basic"),),
    (("pass", "secret", "token", "key", "pwd"), (":", "=")),  # assign: api_key=…, token: …
    (("://",),),  # url
)
"""Per alternative of _PATTERNS, what every match holds: one substring (lowercase) of each
tuple."""
_HINTS = tuple(dict.fromkeys(h for needs in _PATTERN_HINTS for h in needs[0]))
_GATE = re.compile("|".join(re.escape(h) for h in _HINTS))
"""Does the lowered text hold any hint at all: one scan instead of a test per hint."""


@functools.cache
def _secret_for(alternatives: tuple[int, ...]) -> re.Pattern[str]:
    return re.compile("|".join(_PATTERNS[i] for i in alternatives), _FLAGS)


def redact(text: str) -> str:
    """`text` with secrets replaced by `[REDACTED]`; idempotent.

    Most text holds no hint and is returned as is. Otherwise only the alternatives whose hints
    occur are tried: one that cannot match anywhere changes no match when left out, and the
    full alternation is several times slower. That holds for ASCII text; other text (where
    IGNORECASE also folds a few non-ASCII letters onto ASCII ones) gets the full alternation."""
    lowered = text.lower()
    if _GATE.search(lowered) is None:
        return text
    if not text.isascii():
        return _SECRET.sub(_replace, text)
    alternatives = tuple(
        i
        for i, needs in enumerate(_PATTERN_HINTS)
        if all(any(h in lowered for h in hints) for hints in needs)
    )
    return _secret_for(alternatives).sub(_replace, text) if alternatives else text
