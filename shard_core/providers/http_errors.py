"""HTTP failures of a model API, translated into the ProviderError tree (SDK-neutral).

Adapters catch their SDK's exceptions and hand the status, headers and body to `status_error`
or `connection_error`; no SDK type is needed here, so the rules are tested without a network.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any, cast

from shard_core.types.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderRetryableError,
)

# Error types an API may send inside a 200 stream (Anthropic's `event: error`) that are transient.
_RETRYABLE_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
# 408 timeout and 409 conflict are transient too: both SDKs retry them by default.
_RETRYABLE_STATUSES = frozenset({408, 409, 429})


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if (millis := _number(headers.get("retry-after-ms"))) is not None:
        return max(0.0, millis / 1000)
    raw = headers.get("retry-after")
    if raw is None:
        return None
    if (seconds := _number(raw)) is not None:
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def api_message(body: object, fallback: str) -> str:
    """What the API said: `error.message` of an error body, else the fallback text."""
    error = _field(body, "error")
    message = _field(error if error is not None else body, "message")
    return message if isinstance(message, str) and message else fallback


def api_error_type(body: object) -> str | None:
    """`error.type`, or a top-level `type` (the OpenAI SDK unwraps `error` from its bodies)."""
    error = _field(body, "error")
    kind = _field(error if error is not None else body, "type")
    return kind if isinstance(kind, str) and kind != "error" else None


def status_error(
    provider: str,
    status: int,
    *,
    body: object,
    headers: Mapping[str, str],
    fallback: str = "",
) -> ProviderError:
    """The ProviderError for an HTTP error status (or an error event inside a 200 stream)."""
    kind = api_error_type(body)
    said = api_message(body, fallback or f"HTTP {status}")
    message = f"{provider} API error {status}{f' ({kind})' if kind else ''}: {said}"
    if status in (401, 403):
        return ProviderAuthError(message, status=status)
    should_retry = headers.get("x-should-retry")
    if should_retry == "false" and status >= 500:
        return ProviderError(message, status=status)
    retryable = (
        should_retry == "true"
        or status in _RETRYABLE_STATUSES
        or status >= 500
        or (status < 400 and kind in _RETRYABLE_TYPES)
    )
    if retryable:
        return ProviderRetryableError(message, status=status, retry_after=retry_after(headers))
    return ProviderRequestError(message, status=status)


def connection_error(
    provider: str, error: BaseException, *, base_url: str | None = None, model: str | None = None
) -> ProviderRetryableError:
    """A connection refused, reset or timed out: worth another try. The message names where it
    tried and for which model, so a person can tell a wrong URL from a server that is down."""
    detail = str(error) or type(error).__name__
    where = [f"base URL {base_url}"] if base_url else []
    where += [f"model {model}"] if model else []
    said = f" ({', '.join(where)})" if where else ""
    return ProviderRetryableError(f"{provider}: connection failed: {detail}{said}")


def _number(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        return None


def _field(value: object, key: str) -> object:
    if isinstance(value, Mapping):
        return cast(Mapping[str, Any], value).get(key)
    return None
