"""Jupyter clients nobody here wrote show the whole turn: `jupyter console` (prints each
display_data once, ignores update_display_data), `jupyter nbconvert --execute` and papermill (apply
the updates and save the notebook), and euporie's console (rich output in a terminal; fails on
update_display_data, so it is given `KERNEL_SHARD_OUTPUT=plain`): every word of a streamed reply,
the tool lines and the permission line, each once."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pexpect
import pyte
import pytest

from tests.fixtures.euporie import euporie_python
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


def _euporie(jupyter_dirs: Path, workspace: Path, output: str) -> str:
    """What euporie's console shows of the prompt's turn: its screen read through pyte (the
    terminal it draws on), its IOPub messages' failures in its own log."""
    python = euporie_python()
    if not isinstance(python, Path):
        pytest.fail(python)
    spec = jupyter_dirs / "jdata" / "kernels" / "shard" / "kernel.json"
    kernel = json.loads(spec.read_text())
    kernel["argv"][0] = sys.executable  # the project's python, not euporie's venv
    spec.write_text(json.dumps(kernel))
    env = _env(jupyter_dirs, workspace) | {"KERNEL_SHARD_OUTPUT": output, "TERM": "xterm"}
    env.pop("JUPYTER_PATH", None)  # this spec, not one found before it
    log = jupyter_dirs / f"euporie-{output}.log"
    argv = ["-m", "euporie.console", "--kernel-name", "shard", "--no-mouse-support"]
    argv += ["--graphics", "none", "--no-show-status-bar", "--color-depth", "1"]
    argv += ["--log-file", str(log), "--log-level", "debug"]
    rows, cols = 60, 220
    screen = pyte.Screen(cols, rows)
    stream = pyte.Stream(screen)
    child = pexpect.spawn(
        str(python), argv, env=env, encoding="utf-8", dimensions=(rows, cols), cwd=workspace
    )

    def shown() -> str:
        return "\n".join(line.rstrip() for line in screen.display)

    def read_until(pattern: str, seconds: float) -> bool:
        end = time.monotonic() + seconds  # a bound on a process that never draws it, not a speed
        while time.monotonic() < end:
            with contextlib.suppress(pexpect.TIMEOUT):
                stream.feed(child.read_nonblocking(65536, timeout=0.2))
            if re.search(pattern, shown()):
                return True
        return False

    try:
        end = time.monotonic() + 120  # typed before its kernel is ready, a cell shows nothing
        while "kernel_started" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < end, shown()
            read_until(r"\Z\A", 0.5)
        child.send(PROMPT)
        assert read_until(re.escape(PROMPT), 60), shown()
        child.send("\r")
        if output == "plain":
            assert read_until(r"completed ·", 120), shown()  # the turn's last line
        else:  # the turn ends in its log; euporie is given a moment to draw what it got
            logs = jupyter_dirs / "shard-home" / "agents"
            ended = lambda: any("GAMMA-END" in f.read_text() for f in logs.rglob("*.jsonl"))  # noqa: E731
            end = time.monotonic() + 120
            while not ended() and time.monotonic() < end:
                read_until(r"\Z\A", 0.5)
            read_until(r"\Z\A", 3)
        return shown()
    finally:
        child.close(force=True)


def test_euporie_console_shows_every_word_of_a_plain_kernel(
    jupyter_dirs: Path, workspace: Path
) -> None:
    """euporie 2.10's console fails on every update_display_data (its handler raises and its
    IOPub reader stops: with the live kernel it shows nothing of the turn, as the second half
    checks); `KERNEL_SHARD_OUTPUT=plain` sends each output once, and all of it shows."""
    screen = _euporie(jupyter_dirs, workspace, "plain")
    flat = " ".join(screen.split())  # euporie indents and may wrap a long line
    for words in (FIRST, "It says hello. BETA-END", "The write was refused. GAMMA-END"):
        assert flat.count(" ".join(words.split())) == 1, screen
    assert flat.count("ALPHA-START") == 1, screen
    assert "running read…" in flat, screen
    assert "✓ read" in flat, screen
    assert flat.index("running read…") < flat.index("✓ read") < flat.index("BETA-END"), screen
    assert flat.count("Permission needed: Allow write: out.txt") == 1, screen
    assert "denied by headless policy" in flat, screen
    assert flat.index("BETA-END") < flat.index("Permission needed") < flat.index("GAMMA"), screen

    (workspace / "out.txt").unlink(missing_ok=True)
    live = " ".join(_euporie(jupyter_dirs, workspace, "live").split())
    assert "GAMMA-END" not in live  # the client's own failure, which plain output is for


def test_an_unknown_output_kind_is_a_clear_error_and_runs_nothing(
    jupyter_dirs: Path, workspace: Path
) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "shard", "display_name": "Shard", "language": "shard"}
    nb.cells = [nbformat.v4.new_code_cell(PROMPT)]
    source = workspace / "ask.ipynb"
    nbformat.write(nb, str(source))
    env = _env(jupyter_dirs, workspace) | {"KERNEL_SHARD_OUTPUT": "fancy"}
    argv = [JUPYTER, "nbconvert", "--to", "markdown", "--execute", "--allow-errors", str(source)]
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=180)
    saved = (workspace / "ask.md").read_text()
    assert "KERNEL_SHARD_OUTPUT='fancy'; use live" in saved, saved
    assert "ALPHA-START" not in saved
