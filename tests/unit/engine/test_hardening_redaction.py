"""Issue 32 items 5 and 6 in the engine: the secret shapes the first definition missed, encodings
of a known secret, and every path into the session log and the event stream redacted — a steer, a
queued message, injected context, a background task's end notice, and (enumerated from the wire
schema) every entry kind and every event kind."""

from __future__ import annotations

import asyncio
import base64
import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import HealthCheck, assume, given, settings
from pydantic import BaseModel, ValidationError

from shard_core.contracts import ToolContext
from shard_core.engine.events import EventStream
from shard_core.engine.session import AgentSession
from shard_core.engine.session_store import SessionStore
from shard_core.protocol.events import Event
from shard_core.tools import BashTool
from shard_core.tools.tasks import BackgroundTasks
from shard_core.types import JsonObject, SessionEntry
from shard_core.types.secrets import KnownSecrets, is_secret_name, looks_like_secret
from tests.fixtures.function_provider import FunctionProvider, scripted
from tests.unit.types.test_roundtrip import (
    _strategy,  # pyright: ignore[reportPrivateUsage] (the wire schema's own generator)
)

Make = Callable[..., AgentSession]

# Realistic values, none of which the first definition knew by name or by shape.
LEAKED = {
    "DB_PASS": "Tr0ub4dor&3-staple",
    "REDIS_PASS": "redis-s3cr3t-pw-2291",
    "SMTP_PASS": "mail.pass.7781.x",
    "AZURE_STORAGE_CONNECTION_STRING": (
        "DefaultEndpointsProtocol=https;AccountName=shardtest;"
        "AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A=;"
        "EndpointSuffix=core.windows.net"
    ),
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/cccccccccccccccc",
    "SENTRY_DSN": "https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4504",
    "DOCKER_AUTH_CONFIG": '{"auths":{"registry.example.com":{"auth":"dXNlcjpodW50ZXIy"}}}',
    "DISCORD_WEBHOOK": "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstu",
}
SECRET = "Tr0ub4dor&3-staple"
PATH = "/usr/bin:/bin"


@pytest.mark.parametrize("name", sorted(LEAKED))
def test_item5_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["PASSENGER", "BYPASS", "BYPASS_CACHE", "COMPASS_DIR", "PASSENGER_COUNT", "SURPASS",
     "DSNAME", "PATH", "SSH_AUTH_SOCK", "WEBPACK_MODE"],
)  # fmt: skip
def test_item5_ordinary_names_stay(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["AZURE_STORAGE_CONNECTION_STRING", "SLACK_WEBHOOK_URL", "SENTRY_DSN",
             "DOCKER_AUTH_CONFIG", "DISCORD_WEBHOOK"],
)  # fmt: skip
def test_item5_secret_value_shapes(name: str) -> None:
    assert looks_like_secret(LEAKED[name])
    assert looks_like_secret(f"export X='{LEAKED[name]}'")  # inside other text too


@pytest.mark.parametrize(
    "value",
    ["https://git@github.com/x/y", "ssh://user@host/repo", "https://first.last@example.com",
     "AccountName=shardtest;EndpointSuffix=core.windows.net", "https://hooks.slack.com/"],
)  # fmt: skip
def test_item5_ordinary_values_stay(value: str) -> None:
    assert not looks_like_secret(value)


def _encodings(value: str) -> dict[str, str]:
    data = value.encode()
    found = {"hex": data.hex(), "HEX": data.hex().upper(), "url": quote(value, safe="")}
    found["url+"] = quote_plus(value)
    for prefix in ("", "a", "ab", "key="):
        for suffix in ("", "\n"):
            blob = (prefix + value + suffix).encode()
            found[f"b64 {prefix!r}{suffix!r}"] = base64.b64encode(blob).decode()
            found[f"b64url {prefix!r}{suffix!r}"] = base64.urlsafe_b64encode(blob).decode()
    return found


@pytest.mark.parametrize("encoding", sorted(_encodings(SECRET)))
def test_item5_encodings_of_a_known_secret_are_redacted(encoding: str) -> None:
    encoded = _encodings(SECRET)[encoding]
    redacted = KnownSecrets([SECRET]).redact(f"out: {encoded} :end")
    assert encoded not in redacted
    assert "[secret]" in redacted
    assert redacted.startswith("out: ")
    assert redacted.endswith(" :end")


def test_item5_a_wrapped_base64_text_holding_a_known_secret_is_redacted() -> None:
    text = "".join(f"{k}={v}\n" for k, v in LEAKED.items())
    wrapped = base64.encodebytes(text.encode()).decode()  # 76 columns, as `base64` prints it
    secrets = KnownSecrets(LEAKED.values())

    assert secrets.redact(f"$ base64 creds\n{wrapped}$ ls\n") == "$ base64 creds\n[secret]\n$ ls\n"
    assert secrets.found_in(wrapped)
    plain = base64.encodebytes(b"nothing secret in this ordinary text at all, " * 3).decode()
    assert secrets.redact(plain) == plain


# ------------------------------------------------------------ item 6: paths into the log


def _logged(session: AgentSession) -> str:
    session.store.sync()
    return session.store.path.read_text()


async def test_item6_steers_queued_messages_and_injected_context_are_redacted(
    make_session: Make,
) -> None:
    provider = FunctionProvider(scripted("ok", "ok again"))
    session = make_session(provider, secrets=KnownSecrets([SECRET]))
    seen: list[Event] = []
    session.events.subscribe(seen.append)
    session.steer(f"queued: the password is {SECRET}", queue=True)
    session.inject(f"context with {SECRET}", "note", "pasted")
    await session.run(f"prompt with {SECRET}")
    assert SECRET not in _logged(session)
    assert SECRET not in "".join(e.model_dump_json() for e in seen)
    assert "queued: the password is [secret]" in _logged(session)
    assert SECRET not in json.dumps([r.model_dump(mode="json") for r in provider.requests])


async def test_item6_a_background_task_notice_is_redacted_in_log_and_events(
    make_session: Make, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "creds.txt").write_text(f"password: {SECRET}\n")
    provider = FunctionProvider(scripted("noted"))
    session = make_session(provider, secrets=KnownSecrets([SECRET]))
    seen: list[Event] = []
    session.events.subscribe(seen.append)
    tasks = BackgroundTasks(tmp_path / "s.tasks", kill_grace=0.5)
    tasks.notify = lambda text: session.steer(text, queue=True)  # as the SDK binds it
    try:
        ctx = ToolContext(workspace, [workspace], "agent-test", "s", "c", env={"PATH": PATH})
        command: JsonObject = {"command": "cat creds.txt", "background": True}
        started = await BashTool(tasks=tasks).execute(command, ctx)
        task = tasks.get(str(started.details["task_id"]))
        assert task is not None
        while task.running:
            await asyncio.sleep(0.02)
        await session.run("go on")
    finally:
        await tasks.close()
    log = _logged(session)
    assert "[background task" in log  # the notice was logged …
    assert "password: [secret]" in log  # … with its last output, redacted
    assert SECRET not in log
    receipts = [e for e in seen if e.type == "steer_receipt"]
    assert receipts
    assert SECRET not in "".join(e.model_dump_json() for e in seen)


# ------------------------------------------------------------ every entry and event kind


def _members(union: Any) -> list[type[BaseModel]]:
    return list(typing.get_args(typing.get_args(union)[0]))


def _with_secret(raw: Any, model: type[BaseModel]) -> tuple[Any, int]:
    """`raw` with SECRET appended to every string leaf the model still accepts it in."""
    leaves: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(value, str):
                leaves.append((node, key))
            elif isinstance(value, dict | list):
                walk(value)

    walk(raw)
    count = 0
    for node, key in leaves:
        before = node[key]
        node[key] = f"{before} {SECRET}"
        try:
            model.model_validate(raw)
            count += 1
        except ValidationError:
            node[key] = before
    return raw, count


KINDS_SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=list(HealthCheck),  # pyright: ignore[reportArgumentType]
)


@pytest.mark.parametrize("entry_cls", _members(SessionEntry), ids=lambda c: c.__name__)
def test_item6_every_entry_kind_is_redacted_in_the_log(
    entry_cls: type[BaseModel], tmp_path: Path
) -> None:
    store = SessionStore.create(tmp_path / "sessions", tmp_path)
    store.secrets = KnownSecrets([SECRET])

    @KINDS_SETTINGS
    @given(_strategy(entry_cls))
    def check(raw: Any) -> None:
        raw, count = _with_secret(raw, entry_cls)
        assume(count > 0)
        entry: Any = entry_cls.model_validate(raw)
        appended = store.append(entry_cls, entry.details)
        assert SECRET not in appended.model_dump_json()

    try:
        check()
        store.sync()
        assert SECRET not in store.path.read_text()
    finally:
        store.close()


@pytest.mark.parametrize("event_cls", _members(Event), ids=lambda c: c.__name__)
def test_item6_every_event_kind_is_redacted_for_subscribers(event_cls: type[Any]) -> None:
    stream = EventStream("agent-x")
    stream.secrets = KnownSecrets([SECRET])
    seen: list[Event] = []
    stream.subscribe(seen.append)
    stamped = {"agent_id", "seq", "ts", "type"}

    @KINDS_SETTINGS
    @given(_strategy(event_cls))
    def check(raw: Any) -> None:
        raw, count = _with_secret(raw, event_cls)
        assume(count > 0)
        event = event_cls.model_validate(raw)
        fields = {k: getattr(event, k) for k in type(event).model_fields if k not in stamped}
        stream.emit(event_cls, **fields)
        assert SECRET not in seen[-1].model_dump_json()

    check()
