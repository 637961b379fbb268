"""UsageHistory: the append-only `SHARD_HOME/usage.jsonl`, one record per provider request.

Each record is one line written with a single `write` on a file opened `O_APPEND`, so the
agents of several kernels can share the file without a lock (a line of a few hundred bytes is
written whole). Reading skips damaged lines: the history is a report, not the source of truth
(the session logs are).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, ValidationError

from shard_core.types import Usage, WireModel

if TYPE_CHECKING:  # the session calls this with itself
    from shard_core.engine.session import AgentSession

USAGE_FILE = "usage.jsonl"


class UsageRecord(WireModel):
    ts: float = Field(description="seconds since the epoch, UTC")
    agent_id: str
    session_id: str
    model: str
    provider: str | None = None
    workspace: str | None = None
    turn_id: str | None = None
    entry_id: str | None = Field(default=None, description="the assistant message it produced")
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
            cost_usd=self.cost_usd,
        )


def append_usage(path: Path, record: UsageRecord) -> None:
    line = (record.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def usage_record(
    session: AgentSession,
    usage: Usage,
    *,
    turn_id: str | None = None,
    entry_id: str | None = None,
) -> UsageRecord:
    """The record of one provider request `session` made (the agent, session, model, provider
    and workspace come from it)."""
    return UsageRecord(
        ts=time.time(),
        agent_id=session.agent_id,
        session_id=session.store.session_id,
        model=session.provider.model,
        provider=session.provider.name,
        workspace=str(session.config.cwd),
        turn_id=turn_id,
        entry_id=entry_id,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd=usage.cost_usd,
    )


def read_usage(path: Path, since: float | None = None) -> Iterator[UsageRecord]:
    """The records (at or after `since`, epoch seconds), oldest first; damaged lines skipped."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            if not line.endswith(b"\n"):
                break  # a line still being written
            try:
                record = UsageRecord.model_validate(json.loads(line))
            except (ValueError, ValidationError):
                continue
            if since is None or record.ts >= since:
                yield record
