"""`shard sessions list|search` (titles, workspace, activity, usage; ranked by relevance and
recency) and `shard usage` (grouped table with bars), over logs written by real sessions."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from shard_core.engine.session_store import SessionStore
from shard_core.engine.usage_history import UsageRecord, append_usage
from shard_core.types import (
    AssistantMessage,
    CheckpointEntry,
    MessageDetails,
    MessageEntry,
    TextBlock,
    TitleCheckpoint,
    Usage,
    UserMessage,
)
from shard_kernel.cli import main
from shard_kernel.commands.usage import parse_since


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr("shard_kernel.commands.SUBCOMMANDS", ("sessions", "usage"))
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home"


def _session(home: Path, cwd: Path, title: str | None, user: str, answer: str) -> str:
    store = SessionStore.create(home / "agents" / "agent-x" / "sessions", cwd, agent_id="agent-x")
    store.append(MessageEntry, MessageDetails(message=UserMessage(content=[TextBlock(text=user)])))
    if title:
        store.append(CheckpointEntry, TitleCheckpoint(title=title))
    usage = Usage(input_tokens=1200, output_tokens=300, cost_usd=0.0123)
    reply = AssistantMessage(content=[TextBlock(text=answer)], usage=usage)
    store.append(MessageEntry, MessageDetails(message=reply))
    store.close()
    return store.session_id


def test_list_shows_title_workspace_activity_and_usage(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _session(home, tmp_path, "Fix the login flake", "fix it", "done")
    b = _session(home, tmp_path, None, "hello", "hi")
    assert main(["sessions", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [a, b]
    assert lines[0].endswith(f"agent-x  {tmp_path}  “Fix the login flake”")
    assert "1,200 in / 300 out  $0.0123" in lines[0]
    assert lines[1].endswith("(untitled)")


def test_search_ranks_sessions_and_prints_titles(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, other = tmp_path / "ws", tmp_path / "other"
    ws.mkdir()
    other.mkdir()
    weak = _session(home, ws, "Deploy notes", "deploy", "the key is in vault")
    strong = _session(
        home, ws, "Key rotation", "rotate the signing key",
        "The signing key rotates hourly; the old signing key stays valid for a day.",
    )  # fmt: skip
    _session(home, other, "Elsewhere", "signing key", "another workspace's signing key")
    assert main(["sessions", "search", "signing key", "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.startswith("s-")]
    assert [h.split()[0] for h in heads] == [strong]
    assert heads[0].startswith(f"{strong} “Key rotation” ({ws}, last active ")
    assert weak not in out  # "key" alone is not "signing key"
    assert main(["sessions", "search", "signing key"]) == 0
    everywhere = capsys.readouterr().out
    assert "“Elsewhere”" in everywhere
    assert main(["sessions", "search", "nothing matches this"]) == 7  # nothing found
    assert "no session under" in capsys.readouterr().out


def _record(ts: float, model: str, agent: str, tokens: int, cost: float | None) -> UsageRecord:
    return UsageRecord(
        ts=ts, agent_id=agent, session_id="s-1", model=model,
        input_tokens=tokens, output_tokens=tokens // 10, cost_usd=cost,
    )  # fmt: skip


def test_usage_groups_by_model_agent_and_day(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = time.time()
    log = home / "usage.jsonl"
    append_usage(log, _record(now - 30 * 86_400, "old-model", "agent-a", 9999, 9.0))
    append_usage(log, _record(now - 3600, "claude", "agent-a", 1000, 0.01))
    append_usage(log, _record(now - 60, "claude", "agent-b", 3000, 0.03))
    append_usage(log, _record(now - 30, "gpt", "agent-b", 500, None))
    assert main(["usage"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "model", "requests", "input", "output", "cache", "rd", "cache", "wr", "cost", "tokens",
    ]  # fmt: skip
    assert lines[1].split()[:7] == ["claude", "2", "4,000", "400", "0", "0", "$0.0400"]
    assert lines[1].endswith("█" * 24)  # the biggest row gets the full bar
    assert lines[2].split()[:7] == ["gpt", "1", "500", "50", "0", "0", "?"]
    assert lines[3].split()[:7] == ["total", "3", "4,500", "450", "0", "0", "?"]
    assert main(["usage", "--since", "all", "--by", "agent", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["key"], r["requests"]) for r in rows] == [("agent-a", 2), ("agent-b", 2)]


def test_since_accepts_spans_dates_and_all_and_says_what_else() -> None:
    assert parse_since("12h", now=100_000.0) == 100_000.0 - 12 * 3600
    assert parse_since("2w", now=2_000_000.0) == 2_000_000.0 - 14 * 86_400
    assert parse_since("all") is None
    assert parse_since("2026-11-01") == time.mktime(time.strptime("2026-11-01", "%Y-%m-%d"))
    with pytest.raises(Exception, match="give a span like 12h, 7d or 4w"):
        parse_since("last tuesday")


def test_no_usage_yet_says_so(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usage", "--by", "day"]) == 0
    assert "no provider requests recorded since 7d" in capsys.readouterr().out
