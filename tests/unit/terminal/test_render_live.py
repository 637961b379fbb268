"""A running tool's card in a terminal (`shard run`, `shard agents attach`): each `tool_update`
redraws it in place and its result replaces it — read here as a person would see it, through
the pyte terminal emulator. A log or a pipe gets only the result."""

from __future__ import annotations

import io

import pyte
import pytest

from shard_core.protocol.events import (
    MessageDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUpdateEvent,
)
from shard_core.types import TerminalDescriptor, ToolResult
from shard_core.types.content import ToolCallBlock
from shard_kernel.terminal.render import TerminalRenderer

ROWS, COLUMNS = 24, 80


@pytest.fixture(autouse=True)
def _size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))  # what shutil.get_terminal_size reads first
    monkeypatch.setenv("LINES", str(ROWS))


def _card(screen: str, state: str = "running") -> TerminalDescriptor:
    return TerminalDescriptor(terminal_id="t1", name="repl", command="python3 -i",
                              state=state, screen=screen)  # fmt: skip


def _call(call_id: str) -> ToolCallEvent:
    call = ToolCallBlock(id=call_id, name="terminal_wait", input={"id": "t1"})
    return ToolCallEvent(agent_id="a", seq=0, ts=0, turn_id="t", call=call, read_only=True)


def _update(call_id: str, screen: str) -> ToolUpdateEvent:
    partial = ToolResult.ok(screen, _card(screen))
    return ToolUpdateEvent(agent_id="a", seq=0, ts=0, turn_id="t", tool_call_id=call_id,
                           name="terminal_wait", partial=partial)  # fmt: skip


def _result(call_id: str, screen: str) -> ToolResultEvent:
    result = ToolResult.ok(screen, _card(screen, "exited (0)"))
    return ToolResultEvent(agent_id="a", seq=0, ts=0, turn_id="t", tool_call_id=call_id,
                           name="terminal_wait", entry_id="e", result=result)  # fmt: skip


def _seen(written: str) -> list[str]:
    """The screen a person has after `written`, line by line (the terminal emulator)."""
    screen = pyte.Screen(COLUMNS, ROWS)
    pyte.Stream(screen).feed(written.replace("\n", "\r\n"))
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def test_updates_redraw_one_card_in_place_and_the_result_replaces_it() -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=True, live=True)
    render(_call("c1"))
    render(_update("c1", "counting 1"))
    render(_update("c1", "counting 1\ncounting 2"))
    seen = _seen(out.getvalue())
    assert seen[1:] == ["… terminal_wait", "  terminal t1 (repl): python3 -i — running",
                        "  counting 1", "  counting 2"], seen  # fmt: skip
    render(_result("c1", "counting 1\ncounting 2\ndone"))
    seen = _seen(out.getvalue())
    assert "… terminal_wait" not in seen, "the result took the running card's place"
    assert seen[1:] == ["✓ terminal_wait", "  terminal t1 (repl): python3 -i — exited (0)",
                        "  counting 1", "  counting 2", "  done"], seen  # fmt: skip


def test_two_running_calls_share_the_block_and_text_printed_below_freezes_it() -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=False, live=True)
    render(_update("c1", "first"))
    render(_update("c2", "second"))
    render(_update("c1", "first again"))
    assert _seen(out.getvalue()).count("… terminal_wait") == 2, "one card per call, no copies"
    render(_result("c1", "first done"))
    seen = _seen(out.getvalue())
    assert seen.index("  first done") < seen.index("  second"), "the other card stays below"
    assert "  first again" not in seen
    render(MessageDeltaEvent(agent_id="a", seq=0, ts=0, turn_id="t", delta="thinking aloud"))
    render(_update("c2", "second again"))
    seen = _seen(out.getvalue())
    assert "thinking aloud" in seen, "text printed after the block is never erased"
    assert seen[-1] == "  second again"


def test_a_long_screen_and_wide_lines_stay_within_the_terminal() -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=False, live=True)
    render(_call("c1"))
    tall = "\n".join(f"row {i} " + "界" * 50 for i in range(60))  # each row wraps: 100+ columns
    render(_update("c1", tall))
    render(_update("c1", tall.replace("row", "ROW")))
    render(_result("c1", "short at last"))
    seen = _seen(out.getvalue())
    assert not any("row" in line or "ROW" in line for line in seen), seen
    assert seen[-2:] == ["  terminal t1 (repl): python3 -i — exited (0)", "  short at last"]


def test_a_log_gets_no_updates_only_the_result() -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=False)  # not a TTY
    render(_update("c1", "counting 1"))
    render(_result("c1", "done"))
    assert "counting" not in out.getvalue()
    assert out.getvalue().startswith("✓ terminal_wait")
