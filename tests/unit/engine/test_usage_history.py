"""SHARD_HOME/usage.jsonl: one record per provider request, appended, never rewritten."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from shard_core.engine.session import AgentSession
from shard_core.engine.usage_history import UsageRecord, append_usage, read_usage
from shard_core.types import Usage
from tests.fixtures.function_provider import FunctionProvider, scripted

Make = Callable[..., AgentSession]


async def test_every_provider_request_appends_one_record(
    make_session: Make, tmp_path: Path, workspace: Path
) -> None:
    log = tmp_path / "home" / "usage.jsonl"
    provider = FunctionProvider(
        scripted({"tool_calls": [("ls", {"path": "."})]}, "done"),
        usage=lambda _r: Usage(input_tokens=100, output_tokens=20, cost_usd=0.5),
    )
    session = make_session(provider, usage_log=log)
    end = await session.run("list the files")
    records = list(read_usage(log))
    assert [r.model_dump(exclude={"ts", "entry_id"}) for r in records] == [
        {
            "agent_id": "agent-test",
            "session_id": session.store.session_id,
            "model": "function-model",
            "provider": "function",
            "workspace": str(workspace),
            "turn_id": end.turn_id,
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "cost_usd": 0.5,
        }
    ] * 2
    assistant_ids = [
        e.id for e in session.store.entries if e.type == "message" and e.details.request
    ]
    assert [r.entry_id for r in records] == assistant_ids


def test_damaged_and_unfinished_lines_are_skipped(tmp_path: Path) -> None:
    log = tmp_path / "usage.jsonl"
    good = UsageRecord(ts=10.0, agent_id="a", session_id="s", model="m", input_tokens=1)
    append_usage(log, good)
    with log.open("ab") as f:
        f.write(b'{"not": "a record"}\n{"ts": 11, "agent_id": "a", "sess')
    assert list(read_usage(log)) == [good]
    assert list(read_usage(log, since=11.0)) == []
    assert list(read_usage(tmp_path / "missing.jsonl")) == []
