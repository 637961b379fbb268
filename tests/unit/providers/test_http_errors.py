"""HTTP failures to ProviderErrors: status classes, error types in a 200 stream, retry-after."""

from __future__ import annotations

import email.utils
import time

import pytest

from shard_core.providers.http_errors import connection_error, retry_after, status_error
from shard_core.types.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderRetryableError,
)

ANTHROPIC_BODY = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after-ms": "x", "retry-after": "2"}, 2.0),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_retry_after_as_an_http_date() -> None:
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    waited = retry_after({"retry-after": later})
    assert waited is not None
    assert 25 < waited <= 30
    past = email.utils.formatdate(time.time() - 30, usegmt=True)
    assert retry_after({"retry-after": past}) == 0.0


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, ProviderAuthError),
        (403, ProviderAuthError),
        (400, ProviderRequestError),
        (404, ProviderRequestError),
        (413, ProviderRequestError),
        (408, ProviderRetryableError),
        (409, ProviderRetryableError),
        (429, ProviderRetryableError),
        (500, ProviderRetryableError),
        (503, ProviderRetryableError),
        (529, ProviderRetryableError),
    ],
)
def test_status_classes(status: int, kind: type[ProviderError]) -> None:
    error = status_error("anthropic", status, body=ANTHROPIC_BODY, headers={"retry-after": "3"})
    assert type(error) is kind
    assert error.status == status
    assert str(error) == f"anthropic API error {status} (invalid_request_error): bad"
    if isinstance(error, ProviderRetryableError):
        assert error.retry_after == 3.0


def test_an_overloaded_event_inside_a_200_stream_is_retryable() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    error = status_error("anthropic", 200, body=body, headers={})
    assert isinstance(error, ProviderRetryableError)
    assert str(error) == "anthropic API error 200 (overloaded_error): Overloaded"
    other = {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
    assert type(status_error("anthropic", 200, body=other, headers={})) is ProviderRequestError


def test_openai_bodies_unwrapped_by_the_sdk_and_bodies_that_are_not_json() -> None:
    body = {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
    error = status_error("openai", 429, body=body, headers={})
    assert str(error) == "openai API error 429 (requests): Rate limit reached"
    plain = status_error("openai", 502, body="<html>bad gateway</html>", headers={}, fallback="Bad")
    assert str(plain) == "openai API error 502: Bad"


def test_the_server_may_say_whether_to_retry() -> None:
    told_no = status_error("openai", 500, body=None, headers={"x-should-retry": "false"})
    assert type(told_no) is ProviderError
    told_yes = status_error("openai", 400, body=None, headers={"x-should-retry": "true"})
    assert isinstance(told_yes, ProviderRetryableError)
    auth = status_error("openai", 401, body=None, headers={"x-should-retry": "true"})
    assert isinstance(auth, ProviderAuthError)


def test_connection_errors_are_retryable() -> None:
    error = connection_error("openai", ConnectionRefusedError("refused"))
    assert isinstance(error, ProviderRetryableError)
    assert str(error) == "openai: connection failed: refused"
    assert (
        str(connection_error("openai", TimeoutError())) == "openai: connection failed: TimeoutError"
    )


def test_a_connection_error_names_where_it_tried_and_the_model() -> None:
    error = connection_error(
        "openai", OSError("Connection error."), base_url="http://127.0.0.1:9/v1", model="gpt-x"
    )
    assert str(error) == (
        "openai: connection failed: Connection error. (base URL http://127.0.0.1:9/v1, model gpt-x)"
    )
