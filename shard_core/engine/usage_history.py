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
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, ValidationError

from shard_core.contracts import Provider
from shard_core.types import Usage, WireModel

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


@dataclass(frozen=True)
class UsageLog:
    """One session's door to the history: whose requests they are, and where they go."""

    path: Path | None
    """SHARD_HOME/usage.jsonl (None: not recorded)"""
    agent_id: str
    session_id: str
    workspace: str

    def record(
        self,
        provider: Provider,
        usage: Usage,
        *,
        turn_id: str | None = None,
        entry_id: str | None = None,
    ) -> None:
        """Append the record of one request `provider` answered (OSError when it cannot)."""
        if self.path is None:
            return
        record = UsageRecord(
            ts=time.time(),
            agent_id=self.agent_id,
            session_id=self.session_id,
            model=provider.model,
            provider=provider.name,
            workspace=self.workspace,
            turn_id=turn_id,
            entry_id=entry_id,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            cost_usd=usage.cost_usd,
        )
        append_usage(self.path, record)


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
