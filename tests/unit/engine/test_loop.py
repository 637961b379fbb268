"""The turn loop with a function-driven provider: tools in order, steering, abort, errors."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from shard_core.engine.session import AgentSession
from shard_core.protocol.events import (
    ErrorEvent,
    Event,
    ToolResultEvent,
    TurnEndEvent,
)
from shard_core.types import (
    AssistantMessage,
    MessageEntry,
    ProviderRequest,
    TextBlock,
    ToolResult,
    ToolResultBlock,
    ToolResultEntry,
    UserMessage,
)
from shard_core.types.errors import ProviderAuthError, ProviderRetryableError
from tests.fixtures.function_provider import FunctionProvider, Reply, scripted
from tests.fixtures.processes import dies, group_alive, host_group, marked_sleep

Make = Callable[..., AgentSession]


async def _collect(session: AgentSession, text: str) -> list[Event]:
    return [e async for e in session.prompt(text)]


async def test_read_edit_and_finish(make_session: Make, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    provider = FunctionProvider(
        scripted(
            {"tool_calls": [("read", {"path": "calc.py"})]},
            {
                "tool_calls": [
                    ("edit", {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"})
                ]
            },
            "Fixed add().",
        )
    )
    session = make_session(provider)
    events = await _collect(session, "fix add")
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    end = events[-1]
    assert isinstance(end, TurnEndEvent)
    assert end.reason == "completed"
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    kinds = [e.type for e in events]
    assert kinds.count("tool_result") == 2
    # the third request saw both tool results, in order
    third = provider.requests[2].messages
    results = [
        b.tool_call_id
        for m in third
        if isinstance(m, UserMessage)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]
    assert results == ["c1_0", "c2_0"]
    logged = [e.type for e in session.store.branch()]
    assert logged.count("tool_result") == 2


async def test_steer_reaches_the_next_request_of_the_same_turn(
    make_session: Make, workspace: Path
) -> None:
    provider = FunctionProvider(
        scripted({"tool_calls": [("bash", {"command": "sleep 0.3; echo hi"})]}, "ok"),
    )
    session = make_session(provider)
    seen: list[Event] = []
    session.events.subscribe(seen.append)

    async def steer_during_tool() -> None:
        while not any(e.type == "tool_call" for e in seen):
            await asyncio.sleep(0.01)
        session.steer("also print bye")

    await asyncio.gather(session.run("say hi"), steer_during_tool())
    assert len(provider.requests) == 2
    last_user = provider.requests[1].messages[-1]
    assert isinstance(last_user, UserMessage)
    assert last_user.content == [TextBlock(text="also print bye")]


async def test_abort_during_sleep_ends_quickly_and_leaves_no_process(
    make_session: Make, workspace: Path
) -> None:
    # Found from the host: in the sandbox `$$` is a pid in the command's own namespace.
    sleep = marked_sleep()
    provider = FunctionProvider(
        scripted(
            {
                "tool_calls": [
                    ("bash", {"command": f"exec {sleep}"}),
                    ("ls", {"path": "."}),
                ]
            }
        )
    )
    session = make_session(provider)
    task = asyncio.create_task(session.run("sleep"))
    pgid = await host_group(sleep)
    await asyncio.sleep(0.2)  # the running call's elapsed time shows in its result
    started = time.monotonic()
    assert session.abort()
    end = await task
    elapsed = time.monotonic() - started
    assert end.reason == "aborted"
    assert elapsed < 1.0
    assert await dies(group_alive, pgid)
    results = [e.details for e in session.store.branch() if isinstance(e, ToolResultEntry)]
    assert [(r.tool_call_id, r.result.is_error) for r in results] == [
        ("c1_0", True),
        ("c1_1", True),
    ]
    running, never_ran = (r.result for r in results)
    elapsed = running.details["elapsed_s"]
    assert isinstance(elapsed, float)
    assert 0.2 <= elapsed < 2.0
    assert running == ToolResult.error(
        f"stopped while running ({elapsed:.1f} s)", aborted=True, elapsed_s=elapsed
    )
    assert results[0].duration_ms is not None
    assert results[0].duration_ms >= 200
    assert never_ran == ToolResult.error(
        "aborted: the turn was stopped before this tool ran", aborted=True
    )
    assert results[1].duration_ms is None


async def test_retryable_error_is_retried(make_session: Make) -> None:
    calls = {"n": 0}

    def flaky(request: ProviderRequest, n: int) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ProviderRetryableError("429 rate limited", status=429, retry_after=0.01)
        return "fine"

    session = make_session(FunctionProvider(flaky))
    end = await session.run("hi")
    assert end.reason == "completed"
    assert calls["n"] == 2


async def test_auth_error_ends_the_turn_with_one_error_event(make_session: Make) -> None:
    calls = {"n": 0}

    def denied(request: ProviderRequest, n: int) -> Reply:
        calls["n"] += 1
        raise ProviderAuthError("invalid x-api-key", status=401)

    session = make_session(FunctionProvider(denied))
    events = await _collect(session, "hi")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1
    assert errors[0].code == "ProviderAuthError"
    assert calls["n"] == 1
    assert isinstance(events[-1], TurnEndEvent)
    assert events[-1].reason == "error"


async def test_unknown_tool_is_an_error_result(make_session: Make) -> None:
    session = make_session(FunctionProvider(scripted({"tool_calls": [("nope", {})]}, "ok")))
    events = await _collect(session, "x")
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert result.result.is_error
    assert "unknown tool 'nope'" in result.result.text


async def test_requests_are_reconstructable_from_the_log(make_session: Make) -> None:
    provider = FunctionProvider(scripted("hello"))
    session = make_session(provider)
    await session.run("hi")
    entry = next(
        e
        for e in session.store.branch()
        if isinstance(e, MessageEntry) and isinstance(e.details.message, AssistantMessage)
    )
    assert entry.details.request is not None
    from shard_core.types import CheckpointEntry, ContextCheckpoint

    contexts = [
        e.details
        for e in session.store.entries
        if isinstance(e, CheckpointEntry) and isinstance(e.details, ContextCheckpoint)
    ]
    assert [c.system_hash for c in contexts] == [entry.details.request.system_hash]
    assert [c.tools_hash for c in contexts] == [entry.details.request.tools_hash]
    assert len(contexts[0].tools) == len(provider.requests[0].tools)
