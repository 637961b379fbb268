"""Every `shard` command prints model, tool and server text through terminal_safe: a session whose
title, reply and tool output hold OSC 52 (a clipboard write), OSC 0 (the window title) and
ESC[2J (clear the screen) prints none of those bytes raw, from `sessions list|show|search`,
`session recall|search|compact`, `usage` or an error message (the MCP commands: in
tests/integration/mcp/test_mcp_cli_escapes.py)."""

from __future__ import annotations

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
    ToolCallBlock,
    ToolResult,
    ToolResultDetails,
    ToolResultEntry,
    UserMessage,
)
from shard_kernel.cli import main
from shard_kernel.terminal.output import SafeTextStream

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;owned\x07 \x1b[2J"
RAW = ("\x1b", "\x07", "\x9b")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home"


@pytest.fixture
def session(home: Path, tmp_path: Path) -> str:
    """A session whose every model- and tool-written part says `beacon` next to HOSTILE."""
    store = SessionStore.create(home / "agents" / "agent-x" / "sessions", tmp_path,
                                agent_id="agent-x")  # fmt: skip
    user = UserMessage(content=[TextBlock(text="find the beacon")])
    store.append(MessageEntry, MessageDetails(message=user))
    store.append(CheckpointEntry, TitleCheckpoint(title=f"beacon {HOSTILE}"))
    call = ToolCallBlock(id="t1", name="bash", input={"command": "cat notes"})
    reply = AssistantMessage(content=[TextBlock(text=f"the beacon {HOSTILE}"), call])
    store.append(MessageEntry, MessageDetails(message=reply))
    result = ToolResult.ok(f"beacon output {HOSTILE}\n" + "filler line\n" * 400)
    store.append(ToolResultEntry, ToolResultDetails(tool_call_id="t1", name="bash", result=result))
    # a second turn, so `session compact` has an earlier one to summarise
    later = UserMessage(content=[TextBlock(text="and now?")])
    store.append(MessageEntry, MessageDetails(message=later))
    done = AssistantMessage(content=[TextBlock(text="done")])
    store.append(MessageEntry, MessageDetails(message=done))
    store.close()
    return store.session_id


def _printed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    main(argv)
    captured = capsys.readouterr()
    return captured.out + captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["sessions", "list"],
        ["sessions", "show", "{id}"],
        ["sessions", "search", "beacon"],
        ["session", "recall", "{id}", "beacon"],
        ["session", "search", "beacon"],
        ["session", "compact", "{id}", "--dry-run", "--keep", "0"],
    ],
)
def test_session_commands_print_no_raw_escape(
    argv: list[str], session: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _printed(capsys, [a.replace("{id}", session) for a in argv])
    assert "beacon" in out  # the hostile text was printed, as text
    assert "\\x1b]52;c;" in out
    assert [c for c in RAW if c in out] == []


def test_usage_prints_no_raw_escape(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = UsageRecord(ts=time.time(), agent_id="agent-x", session_id="s-1",
                         model=f"m{HOSTILE}", input_tokens=10)  # fmt: skip
    append_usage(home / "usage.jsonl", record)
    out = _printed(capsys, ["usage"])
    assert "\\x1b]0;owned" in out
    assert [c for c in RAW if c in out] == []


def test_an_error_message_prints_no_raw_escape(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _printed(capsys, ["session", "recall", f"s-{HOSTILE}.jsonl", "q"])
    assert "shard: error:" in out
    assert [c for c in RAW if c in out] == []


def test_agents_escapes_its_errors_itself(capsys: pytest.CaptureFixture[str]) -> None:
    # `agents` is left unfiltered (attach colours its renderer's output): its own lines escape
    url = f"http://127.0.0.1:1/{HOSTILE}"
    out = _printed(capsys, ["agents", "list", "--url", url, "--token", "t"])
    assert "shard agents: cannot reach the gateway at http://127.0.0.1:1/\\x1b]52" in out
    assert [c for c in RAW if c in out] == []


def test_the_stream_escapes_each_write_and_keeps_lines(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    stream = SafeTextStream(sys.stdout)
    assert stream.write(f"a\tb {HOSTILE}\n") == len(f"a\tb {HOSTILE}\n")
    print("\x9bc", file=stream)
    assert capsys.readouterr().out == (
        "a\tb \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b]0;owned\\x07 \\x1b[2J\n\\x9bc\n"
    )


def test_session_request_json_stays_valid_json_with_no_raw_control() -> None:
    import json

    from shard_kernel.commands.session import _json_visible  # pyright: ignore[reportPrivateUsage]

    value = {"text": f"a\x9bb\u202ec\x7f {HOSTILE} é"}
    shown = _json_visible(json.dumps(value, ensure_ascii=False))
    assert json.loads(shown) == value
    assert [c for c in ("\x1b", "\x07", "\x9b", "\u202e", "\x7f") if c in shown] == []
    assert "é" in shown  # the rest stays as the canonical form has it
