"""Jupyter clients nobody here wrote show the whole turn: `jupyter console` (prints each
display_data once, ignores update_display_data), `jupyter nbconvert --execute` and papermill (apply
the updates and save the notebook): every word of a streamed reply, the tool lines and the
permission line, each once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pexpect

from tests.integration.kernel.conftest import write_script

JUPYTER = str(Path(sys.executable).with_name("jupyter"))
FIRST = (
    "ALPHA-START the first part of a long answer streams in several chunks, then more words, "
    "and more words still, until OMEGA-END."
)
WRITE = {"path": "out.txt", "content": "x\n"}
STEPS: list[dict[str, Any]] = [
    {"text": FIRST, "delay": 0.6, "tool_calls": [{"name": "read", "input": {"path": "notes.txt"}}]},
    {"text": "It says hello. BETA-END", "tool_calls": [{"name": "write", "input": WRITE}]},
    {"text": "The write was refused. GAMMA-END"},
]  # fmt: skip
PROMPT = "read notes.txt, then write out.txt"


def _env(jupyter_dirs: Path, workspace: Path) -> dict[str, str]:
    (workspace / "notes.txt").write_text("hello\n")
    script = write_script(jupyter_dirs, STEPS)
    return os.environ | {
        "KERNEL_SHARD_AGENT_ID": "agent-plain",
        "KERNEL_SHARD_MODEL": f"scripted/{script}",
        "KERNEL_SHARD_CWD": str(workspace),
        "KERNEL_SHARD_HEADLESS_POLICY": "deny",
    }


def _says_it_all_once(text: str) -> None:
    for words in (FIRST, "It says hello. BETA-END", "The write was refused. GAMMA-END"):
        assert text.count(words) == 1, text
    assert text.count("ALPHA-START") == 1, text  # no first chunk left behind
    assert "✓ read" in text, text  # the read's result
    assert text.count("Permission needed: Allow write: out.txt") == 1, text
    assert "denied by headless policy" in text, text


def test_jupyter_console_shows_every_word(jupyter_dirs: Path, workspace: Path) -> None:
    argv = ["console", "--kernel", "shard", "--simple-prompt"]
    child = pexpect.spawn(
        JUPYTER, argv, env=_env(jupyter_dirs, workspace), encoding="utf-8", timeout=90,
        dimensions=(50, 300),
    )  # fmt: skip
    try:
        child.expect(r"In \[1\]: ")
        child.sendline(PROMPT)
        child.expect(r"In \[2\]: ")
        shown = str(child.before).replace("\r\n", "\n")
        _says_it_all_once(shown)
        # the result reaches the running card by an update; it lands as a line of its own
        assert "running read…" in shown, shown
        assert "running write…" in shown, shown
        assert shown.index("running read…") < shown.index("✓ read") < shown.index("BETA-END")
        assert shown.index("BETA-END") < shown.index("Permission needed") < shown.index("GAMMA")
        child.sendeof()  # the console asks, then shuts its kernel down
        child.expect(r"\(\[y\]/n\)\? ")
        child.sendline("y")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_nbconvert_and_papermill_save_the_whole_text_once(
    jupyter_dirs: Path, workspace: Path
) -> None:
    env = _env(jupyter_dirs, workspace)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.cells = [nbformat.v4.new_code_cell(PROMPT)]
    source = workspace / "ask.ipynb"
    nbformat.write(nb, str(source))
    argv = [JUPYTER, "nbconvert", "--to", "markdown", "--execute", str(source)]
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=180)
    _says_it_all_once((workspace / "ask.md").read_text())

    (workspace / "out.txt").unlink(missing_ok=True)
    saved = workspace / "ask.out.ipynb"
    argv = [sys.executable, "-m", "papermill", str(source), str(saved), "-k", "shard"]
    argv += ["--cwd", str(workspace), "--no-progress-bar"]
    env["KERNEL_SHARD_AGENT_ID"] = "agent-plain-2"
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=180)
    executed = nbformat.read(str(saved), as_version=4)
    nbformat.validate(executed)
    plains = [o["data"].get("text/plain", "") for o in executed.cells[0].outputs if "data" in o]
    _says_it_all_once("\n".join(plains))
    assert FIRST in plains  # the reply is one output's whole text/plain, not pieces
    outputs: list[Any] = executed.cells[0].outputs
    assert not [o for o in outputs if o["output_type"] == "error"], json.dumps(outputs)
