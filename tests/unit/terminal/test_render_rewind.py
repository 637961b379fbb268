"""A rewind made in any client reaches `shard agents attach`'s terminal as one line: what was
restored, what a person's edit kept, what could not be restored, and how to undo it."""

from __future__ import annotations

import io

from shard_core.protocol.events import RewindEvent
from shard_kernel.terminal.render import TerminalRenderer


def test_a_rewind_is_one_line_in_the_terminal() -> None:
    out = io.StringIO()
    event = RewindEvent(
        agent_id="a", seq=3, ts=0, entry_id="e-rw", to_entry_id="e-turn-2", scope="both",
        restored=["a.py", "nb.ipynb"], kept=["b.py"], failed=["c.py: a symlink now; not followed"],
    )  # fmt: skip
    TerminalRenderer(out, color=False).handle(event)
    assert out.getvalue() == (
        "↺ rewound files and conversation to before entry e-turn-2; restored a.py, nb.ipynb; "
        "kept as a person left them: b.py; not restored: c.py: a symlink now; not followed "
        "(undo: /rewind undo, or rewind to before e-rw)\n"
    )
