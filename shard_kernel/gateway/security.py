"""The gateway's security baseline: bind and origin policy, and secrets kept out of every log line.

`check_bind` and `origin_config` decide what `shard gateway` may start with (loopback unless told
otherwise; a non-loopback bind needs a token and an explicit, exact origin list). `Redactor`
rewrites every log record in the server process, whatever logger or handler it goes through,
so neither the server token, a gateway token, a provider key nor a `token=` query value is written.
What counts as a secret (names and value shapes) is `shard_core.types.secrets`, the same
definition that keeps secrets out of the tools' environment and the session logs.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from jupyter_server.auth.identity import IdentityProvider
from tornado import web

from shard_core.types.errors import ConfigError
from shard_core.types.secrets import MIN_SECRET, REDACTED, SECRET_NAME, SECRET_SHAPES, secret_names

SECRET_ENV = SECRET_NAME
"""Variable names that say "secret" (the shared definition; values are checked too)."""
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # query parameters and key=value pairs whose name says "secret"
    (
        re.compile(r"((?:token|auth|key|secret|password|xsrf)[A-Za-z_]*=)[^&\s\"'<>]+", re.I),
        rf"\1{REDACTED}",
    ),
    # Authorization headers
    (re.compile(r"\b(token|bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1 {REDACTED}"),
    # provider key shapes (Anthropic sk-ant-…, OpenAI sk-…/sk-proj-…)
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), f"sk-{REDACTED}"),
    # every other credential shape of the shared definition (GitHub, AWS, Slack, JWT, …)
    *((shape, REDACTED) for shape in SECRET_SHAPES),
)
EXACT_PATTERNS: set[str] = set()
"""allow_origin_pat values built here from exact origins (the extension does not warn on them)."""
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


class Redactor:
    """Known secret values and secret-shaped text → `[secret]`."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, *values: str | None) -> None:
        with self._lock:
            self._secrets.update(v for v in values if v and len(v) >= MIN_SECRET)

    def add_environment(self, env: dict[str, str] | None = None) -> None:
        """Values of variables that are secrets by name or by the shape of their value."""
        env = dict(os.environ) if env is None else env
        self.add(*(env[name] for name in secret_names(env)))

    def __call__(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, REDACTED)
        for pattern, replacement in PATTERNS:
            text = pattern.sub(replacement, text)
        return text


REDACTOR = Redactor()
_installed = False


def install_log_redaction(redactor: Redactor = REDACTOR) -> None:
    """Redact every log record of this process at creation, before any handler sees it.

    A record factory (not a handler filter) so that loggers and handlers added later — tornado's,
    jupyter_server's, an extension's — are covered too. Installed once per process.
    """
    global _installed
    if _installed:
        return
    previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()
    formatter = logging.Formatter()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            record.msg = redactor(record.getMessage())
            record.args = None
            if record.exc_info:
                record.exc_text = redactor(formatter.formatException(record.exc_info))
        except Exception:  # a record that cannot be formatted is replaced, never let through
            record.msg, record.args = "(unformattable log record withheld)", None
        return record

    logging.setLogRecordFactory(factory)
    _installed = True


def is_loopback(ip: str) -> bool:
    if ip.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(ip.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(ip: str, token: str | None, origins: Iterable[str]) -> None:
    """A non-loopback bind needs a token and an explicit origin list; say why otherwise."""
    if is_loopback(ip):
        return
    missing = []
    if not token:
        missing.append("a token (--token, or JUPYTER_TOKEN in the environment)")
    if not list(origins):
        missing.append("the exact origins allowed to connect (--allow-origin, repeatable)")
    if missing:
        raise ConfigError(
            f"refusing to listen on {ip}, which is not a loopback address, without "
            + " and ".join(missing)
        )


def normalize_origin(origin: str) -> str:
    """`scheme://host[:port]`, lower case, nothing else; `null`, `*` and paths are refused."""
    raw = origin.strip()
    if raw.lower() in ("null", "*", ""):
        raise ConfigError(f"origin {origin!r} is not allowed: name an exact scheme://host[:port]")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"origin {origin!r} must look like https://host[:port]")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ConfigError(f"origin {origin!r} must be scheme://host[:port] with nothing after it")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"origin {origin!r} has a bad port") from None
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    # browsers leave the scheme's default port out of Origin
    return f"{parts.scheme}://{host}" + ("" if port in (None, default) else f":{port}")


def origin_config(origins: Iterable[str]) -> dict[str, str]:
    """ServerApp traits that accept exactly these origins (besides the server's own).

    jupyter_server compares `allow_origin` exactly and `allow_origin_pat` with `re.fullmatch`;
    several origins become one pattern of escaped literals, so no suffix or prefix ever matches.
    """
    exact = sorted({normalize_origin(o) for o in origins})
    if not exact:
        return {}
    if len(exact) == 1:
        return {"allow_origin": exact[0]}
    pattern = "(?:" + "|".join(re.escape(o) for o in exact) + ")"
    EXACT_PATTERNS.add(pattern)
    return {"allow_origin_pat": pattern}


class ShardIdentityProvider(IdentityProvider):
    """jupyter_server's token identity, minus its exemption of token-bearing requests from the
    Origin check: a page on another origin that got hold of the token is still refused."""

    def should_check_origin(self, handler: web.RequestHandler) -> bool:
        return True
