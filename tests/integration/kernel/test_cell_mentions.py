"""`@file:` in a Shard notebook cell (a real kernel, the scripted provider): the file of the
agent's folder goes with the cell's turn as file context labelled `@file:PATH`, logged before the
prompt; a file outside the folder (also through a symbolic link), a missing one or a binary one
is the cell's error and starts no turn; the kernel's completion offers the folder's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.kernel.conftest import StartKernel
from tests.integration.kernel.test_prompt_commands_kernel import _cell, _cell_complete


def _log_lines(jupyter_dirs: Path) -> list[dict[str, Any]]:
    [log] = list((jupyter_dirs / "shard-home").rglob("sessions/*.jsonl"))
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_cells_file_mention_is_context_and_a_bad_one_is_the_cells_error(
    start_kernel: StartKernel, jupyter_dirs: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("threshold = 3\n", encoding="utf-8")
    (workspace / "notebook.ipynb").write_text("{}", encoding="utf-8")
    (workspace / "blob.bin").write_bytes(b"\xff\xfe\x00")
    outside = workspace.parent / "outside.txt"
    outside.write_text("secret\n", encoding="utf-8")
    (workspace / "link.txt").symlink_to(outside)
    _, kc = start_kernel([{"text": "Three, noted."}])

    shown, reply = _cell(kc, "what is the threshold in @file:notes.txt?")
    assert reply["content"]["status"] == "ok"
    assert "Three, noted." in repr([m["content"] for m in shown])
    lines = _log_lines(jupyter_dirs)
    text = json.dumps(lines)
    assert "threshold = 3\\n" in text
    assert text.index("threshold = 3") < text.index("what is the threshold in @file:notes.txt?")
    assert '"@file:notes.txt"' in text  # the label the Lab chat gives it too

    for cell, why in [
        ("read @file:../outside.txt", "@file:../outside.txt is outside the agent's folder"),
        ("read @file:link.txt", "@file:link.txt is outside the agent's folder"),
        ("read @file:gone.txt", "there is no text file gone.txt in the agent's folder"),
        ("read @file:blob.bin", "blob.bin is not a text file (not UTF-8)"),
    ]:
        _, refused = _cell(kc, cell)
        assert refused["content"]["status"] == "error", cell
        assert refused["content"]["ename"] == "MentionError"
        assert refused["content"]["evalue"].startswith(why), refused["content"]["evalue"]
    assert len(_log_lines(jupyter_dirs)) == len(lines)  # nothing logged: no turn, no context
    assert "secret" not in json.dumps(_log_lines(jupyter_dirs))

    assert _cell_complete(kc, "see @fi") == ["@file:"]
    assert _cell_complete(kc, "see @file:no") == ["@file:notebook.ipynb", "@file:notes.txt"]
    assert _cell_complete(kc, "see @file:../") == []  # outside the folder: nothing offered
