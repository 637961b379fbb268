"""`shard run` on a terminal draws a running tool's card live: a `terminal_wait` on a program
that prints over seconds shows its screen as it grows, redrawn in place, and the result takes
the card's place. Read as a person sees it, through the pyte terminal emulator."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pexpect
import pyte

ROWS, COLUMNS = 30, 100
TICKS = "import time\nfor i in range(1, 7): print(f'tick-{i}', flush=True); time.sleep(0.5)"


def test_a_terminal_wait_is_a_live_card_the_result_replaces(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "ticks.py").write_text(TICKS + "\ntime.sleep(60)\n")
    steps = [
        {"tool_calls": [{"name": "terminal_open",
                         "input": {"command": "python3 ticks.py", "name": "ticks"}}]},
        {"tool_calls": [{"name": "terminal_wait",
                         "input": {"id": "ticks", "pattern": "tick-6", "timeout": 60}}]},
        {"tool_calls": [{"name": "terminal_close", "input": {"id": "ticks"}}]},
        {"text": "Watched it."},
    ]  # fmt: skip
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "live", "steps": steps}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {"SHARD_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
            "JUPYTER_DATA_DIR": str(tmp_path / "jd"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "jr"),
            "TERM": "xterm", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}  # fmt: skip
    allow = ["--allow", "Bash(python3:*)", "--allow", "TerminalClose"]
    args = ["-m", "shard_kernel.cli", "run", "--model", f"scripted/{script}", *allow, "watch"]
    child = pexpect.spawn(sys.executable, args, cwd=str(work), env=env, encoding="utf-8",
                          dimensions=(ROWS, COLUMNS), timeout=120)  # fmt: skip
    child.logfile_read = written = io.StringIO()
    try:
        child.expect("Watched it.")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    raw = written.getvalue()
    drawn = [raw.count(f"tick-{i}") for i in range(1, 7)]
    assert raw.count("… terminal_wait") >= 2, f"the card was drawn as it ran: {raw[-2000:]!r}"
    assert drawn[0] > drawn[-1], "each redraw showed the screen so far (tick-1 drawn most)"
    screen = pyte.Screen(COLUMNS, ROWS)
    pyte.Stream(screen).feed(raw)
    seen = [line.rstrip() for line in screen.display]
    assert not any(line.startswith("… terminal_wait") for line in seen), seen
    assert "✓ terminal_wait" in seen, seen
    after = seen[seen.index("✓ terminal_wait") :]
    shown = [line for line in after if line.strip().startswith("tick-")]
    assert shown == [f"  tick-{i}" for i in range(1, 7)], "the result's screen, once"
