"""What counts as a secret: one definition for the tool environment, the logs and the gateway.

A variable is a secret when its name says so (`*PASSWORD*`, `*SECRET*`, `*CREDENTIAL*`, a
`TOKEN`, `KEY`, `PAT`, `PASS` or `DSN` word, a connection string, a webhook, a cookie, …) or when
its value looks like a credential (`sk-…`, `ghp_…`, `AKIA…`, `xoxb-…`, a JWT, a private key, a URL
with a password or a key as its user, an Azure `AccountKey=`, a Slack or Discord webhook, a long
random token). `KnownSecrets` replaces the values a process knows, and their base64, hex and URL
encodings, in text that is logged or broadcast. Pure: no I/O, no environment read here; L0 so
that tools, the engine and the gateway share it.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TypeVar
from urllib.parse import quote, quote_plus

from pydantic import BaseModel

from shard_core.types.results import ToolResult

M = TypeVar("M", bound=BaseModel)

REDACTED = "[secret]"
MIN_SECRET = 8
"""Shorter values are still kept from tools, but not searched for in text (too many false hits)."""

SECRET_NAME = re.compile(
    r"PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY"
    r"|(?:^|_)(?:TOKEN|KEY|PAT)$|_(?:PWD|AUTH)$"
    r"|(?:^|_)(?:TOKEN|KEY|PAT)_"
    r"|[A-Z0-9]TOKEN$"
    r"|(?:^|_)(?:PASS|DSN)(?:$|_)|CONN(?:ECTION)?_?STR(?:ING)?|WEBHOOK|AUTH_?CONFIG|COOKIE",
    re.IGNORECASE,
)
"""Names that say "secret". `TOKEN`, `KEY` and `PAT` count as words (`GITHUB_TOKEN`, `OPENAI_KEY`,
`GITHUB_PAT`, `KEY_FILE`), so `MAX_TOKENS`, `TOKENIZERS_PARALLELISM`, `KEYBOARD` and `PATH` stay;
`PWD` and `AUTH` only as a last word (`DB_PWD`, `NPM_AUTH`, never `PWD` or `SSH_AUTH_SOCK`);
`PASS` and `DSN` as words (`DB_PASS`, `PASS_FILE`, `SENTRY_DSN`, never `BYPASS` or `PASSENGER`);
a connection string, webhook, auth config or cookie anywhere in the name
(`AZURE_STORAGE_CONNECTION_STRING`, `SLACK_WEBHOOK_URL`, `DOCKER_AUTH_CONFIG`)."""

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
    # a key as the URL's user (Sentry's `https://<key>@o1.ingest.sentry.io/2`): long, with a digit
    re.compile(r"\b[a-z][a-z0-9+.-]{0,15}://(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}@"),
    re.compile(r"\b(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}=*"),  # Azure
    re.compile(r"\bSharedAccessSignature=[^;\s\"']{16,}"),
    re.compile(r"\bhttps://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{16,}"),
    re.compile(r"\bhttps://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{16,}"),
    re.compile(r"\"auth\"\s*:\s*\"[A-Za-z0-9+/]{12,}=*\""),  # a docker config.json login
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


def encoded_forms(value: str) -> set[str]:
    """How `value` reads once encoded: hex (both cases), URL-encoded, and base64 (standard and
    URL-safe alphabets) at each of the three alignments it can have inside a longer encoded
    text — the characters that depend on the value's bytes only, so `base64 <<< "k=$X"` is
    caught as well as `base64 <<< "$X"`."""
    data = value.encode("utf-8")
    forms = {data.hex(), data.hex().upper(), quote(value), quote(value, safe=""), quote_plus(value)}
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + data).decode("ascii")
        core = encoded[(8 * shift + 5) // 6 : 8 * (shift + len(data)) // 6]
        forms |= {core, core.translate(_URL_SAFE)}
    return {f for f in forms if len(f) >= MIN_SECRET and f != value}


_URL_SAFE = str.maketrans("+/", "-_")
_WRAPPED = re.compile(
    r"[A-Za-z0-9+/_-]{16,}={0,2}\n(?:[A-Za-z0-9+/_-]{16,}={0,2}\n)+(?:[A-Za-z0-9+/_-]{1,15}={0,2}\n)?"
)
"""Two or more lines of base64 in a row, and a short last one (the wrapped output of `base64`)."""
_WRAPPED_JSON = re.compile(_WRAPPED.pattern.replace(r"\n", r"\\n"))
"""The same inside JSON text, where each newline reads `\\n`."""


def secret_names(env: Mapping[str, str]) -> set[str]:
    """The variables of `env` that are secrets by name or by value."""
    return {name for name, value in env.items() if is_secret(name, value)}


class KnownSecrets:
    """Secret values this process knows (from its environment and named credentials), replaced
    by `[secret]` wherever they appear in text that is logged or broadcast — as they are, and
    encoded (`encoded_forms`: `echo $X | base64`, `xxd -p`, a URL query)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: set[str] = set()
        self._ordered: list[str] = []
        self._in_json: set[str] = set()
        self.add(*values)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], *extra: str) -> KnownSecrets:
        return cls([*(env[name] for name in secret_names(env)), *extra])

    def add(self, *values: str | None) -> None:
        fresh = {v.strip() for v in values if v and len(v.strip()) >= MIN_SECRET} - self._values
        if not fresh:
            return
        self._values.update(fresh)
        needles = set(self._ordered)
        for value in fresh:
            needles |= {value, *encoded_forms(value)}
        self._ordered = sorted(needles, key=len, reverse=True)
        # as they read inside JSON text, for the one-pass check of a whole serialized model
        self._in_json = {json.dumps(n, ensure_ascii=False)[1:-1] for n in self._ordered}

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def __len__(self) -> int:
        return len(self._values)

    def redact(self, text: str) -> str:
        if "\n" in text and self._ordered:
            text = _WRAPPED.sub(self._unwrapped, text)
        for secret in self._ordered:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def found_in(self, text: str) -> bool:
        if any(secret in text for secret in self._ordered):
            return True
        return "\n" in text and any(
            self._holds(m[0].replace("\n", "")) for m in _WRAPPED.finditer(text)
        )

    def _holds(self, text: str) -> bool:
        return any(secret in text for secret in self._ordered)

    def _unwrapped(self, match: re.Match[str]) -> str:
        """A base64 text wrapped over lines (`base64` wraps at 76) that holds a known secret
        once joined: the whole run goes, its last newline kept."""
        run = match[0]
        if not self._holds(run.replace("\n", "")):
            return run
        return REDACTED + ("\n" if run.endswith("\n") else "")

    def redact_result(self, result: ToolResult) -> ToolResult:
        """`result` with every known value replaced in its content, descriptors and details
        (the same object when none occurs, which is nearly always)."""
        return self.redact_model(result)

    def redact_model(self, model: M) -> M:
        """Any wire model (a session entry, an event, a tool result) with every known value
        replaced in every string it holds; the same object when none occurs."""
        if not self._ordered or not self._json_holds(model.model_dump_json()):
            return model  # one pass over the JSON text: the walk below only when one occurs
        dumped = model.model_dump(mode="json")
        if not self._holds_secret(dumped):
            return model
        return type(model).model_validate(self._scrub(dumped))

    def _json_holds(self, text: str) -> bool:
        if any(n in text for n in self._in_json):
            return True
        runs = _WRAPPED_JSON.finditer(text) if "\\n" in text else ()
        return any(self._holds(m[0].replace("\\n", "")) for m in runs)

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
