"""What counts as a secret: one definition for the tool environment, the logs and the gateway.

A variable is a secret when its name says so (`*PASSWORD*`, `*SECRET*`, `*CREDENTIAL*`, a
`TOKEN`, `KEY` or `PAT` word, …) or when its value looks like a credential (`sk-…`, `ghp_…`,
`AKIA…`, `xoxb-…`, a JWT, a private key, a URL with a password, a long random token). Pure: no
I/O, no environment read here; L0 so that tools, the engine and the gateway share it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from shard_core.types.results import ToolResult

REDACTED = "[secret]"
MIN_SECRET = 8
"""Shorter values are still kept from tools, but not searched for in text (too many false hits)."""

SECRET_NAME = re.compile(
    r"PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY"
    r"|(?:^|_)(?:TOKEN|KEY|PAT)$|_(?:PWD|AUTH)$"
    r"|(?:^|_)(?:TOKEN|KEY|PAT)_"
    r"|[A-Z0-9]TOKEN$",
    re.IGNORECASE,
)
"""Names that say "secret". `TOKEN`, `KEY` and `PAT` count as words (`GITHUB_TOKEN`, `OPENAI_KEY`,
`GITHUB_PAT`, `KEY_FILE`), so `MAX_TOKENS`, `TOKENIZERS_PARALLELISM`, `KEYBOARD` and `PATH` stay;
`PWD` and `AUTH` only as a last word (`DB_PWD`, `NPM_AUTH`, never `PWD` or `SSH_AUTH_SOCK`)."""

SECRET_SHAPES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsk-(?:ant-|proj-|svcacct-|live_|test_)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}|\bAIza[0-9A-Za-z_-]{30,}"),
    re.compile(r"\b(?:hf|npm)_[A-Za-z0-9]{20,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),  # JWT
    re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"),
    re.compile(r"\b[a-z][a-z0-9+.-]{0,15}://[^\s:/@]+:[^\s@/]{3,}@"),  # user:password@host
)
"""Credential shapes with a recognisable prefix or structure (searched anywhere in a value)."""

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_-]{24,}")
_MIN_ENTROPY = 4.0


def is_secret_name(name: str) -> bool:
    return SECRET_NAME.search(name) is not None


def looks_like_secret(value: str) -> bool:
    """A known credential shape, or one long random-looking token (mixed case and digits).

    Hex strings (commit ids, hashes) are not counted: they are everywhere in tool output."""
    if any(shape.search(value) for shape in SECRET_SHAPES):
        return True
    token = value.strip()
    if _TOKEN_CHARS.fullmatch(token) is None:
        return False
    mixed = (
        any(c.islower() for c in token)
        and any(c.isupper() for c in token)
        and any(c.isdigit() for c in token)
    )
    return mixed and _entropy(token) >= _MIN_ENTROPY


def is_secret(name: str, value: str) -> bool:
    return is_secret_name(name) or looks_like_secret(value)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def secret_names(env: Mapping[str, str]) -> set[str]:
    """The variables of `env` that are secrets by name or by value."""
    return {name for name, value in env.items() if is_secret(name, value)}


class KnownSecrets:
    """Secret values this process knows (from its environment and named credentials), replaced
    by `[secret]` wherever they appear in text that is logged or broadcast."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: set[str] = set()
        self._ordered: list[str] = []
        self.add(*values)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], *extra: str) -> KnownSecrets:
        return cls([*(env[name] for name in secret_names(env)), *extra])

    def add(self, *values: str | None) -> None:
        self._values.update(v.strip() for v in values if v and len(v.strip()) >= MIN_SECRET)
        self._ordered = sorted(self._values, key=len, reverse=True)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def __len__(self) -> int:
        return len(self._values)

    def redact(self, text: str) -> str:
        for secret in self._ordered:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def found_in(self, text: str) -> bool:
        return any(secret in text for secret in self._ordered)

    def redact_result(self, result: ToolResult) -> ToolResult:
        """`result` with every known value replaced in its content, descriptors and details
        (the same object when none occurs, which is nearly always)."""
        if not self._ordered:
            return result
        dumped = result.model_dump(mode="json")
        if not self._holds_secret(dumped):
            return result
        return ToolResult.model_validate(self._scrub(dumped))

    def _holds_secret(self, value: object) -> bool:
        if isinstance(value, str):
            return self.found_in(value)
        if isinstance(value, dict):
            items: dict[object, object] = value  # pyright: ignore[reportUnknownVariableType]
            return any(self._holds_secret(k) or self._holds_secret(v) for k, v in items.items())
        if isinstance(value, list):
            entries: list[object] = value  # pyright: ignore[reportUnknownVariableType]
            return any(self._holds_secret(v) for v in entries)
        return False

    def _scrub(self, value: object) -> object:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            items: dict[object, object] = value  # pyright: ignore[reportUnknownVariableType]
            return {self._scrub(k): self._scrub(v) for k, v in items.items()}
        if isinstance(value, list):
            entries: list[object] = value  # pyright: ignore[reportUnknownVariableType]
            return [self._scrub(v) for v in entries]
        return value
