"""A Python notebook's `%%shard` cell, run by nbclient: the saved output keeps the transcript.

The live AgentWidget needs its kernel; the same display carries Shard's render MIME with the
turn's events, refreshed (update_display_data, same display_id) when the turn ends — so the
notebook nbclient writes holds the conversation, not an empty widget.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

RENDER = "application/vnd.shard.render+json"
VIEW = "application/vnd.jupyter.widget-view+json"
STEPS = [
    {"text": "Reading.", "tool_calls": [{"name": "read", "input": {"path": "notes.txt"}}]},
    {"text": "It says: remember the milk."},
]


def test_a_saved_agent_cell_holds_its_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("remember the milk\n")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"name": "snapshot", "steps": STEPS}))
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHARD_GATEWAY_URL", "SHARD_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext shard_kernel"),
        nbformat.v4.new_code_cell(
            f"%shard new --name notes --cwd {work} --model scripted/{script}"
        ),
        nbformat.v4.new_code_cell("%%shard --wait --timeout 60\nWhat is in notes.txt?"),
    ]

    NotebookClient(
        nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": work}}
    ).execute()
    saved = nbformat.reads(nbformat.writes(nb), as_version=4)

    [display] = [o for o in saved.cells[2].outputs if o["output_type"] == "display_data"]
    data = display["data"]
    assert set(data) == {VIEW, RENDER, "text/plain"}
    snapshot = data[RENDER]
    kinds = [e["type"] for e in snapshot["transcript"]]
    assert kinds == [
        "turn_start",
        "message_complete",
        "tool_call",
        "tool_result",
        "message_complete",
        "turn_end",
    ]
    assert (snapshot["version"], snapshot["omitted"], snapshot["state"]["status"]) == (1, 0, "idle")
    assert snapshot["transcript"][0]["prompt"] == "What is in notes.txt?"
    assert snapshot["descriptors"][0]["text"] == data["text/plain"]
    lines = data["text/plain"].splitlines()
    assert lines[1:] == [
        "> What is in notes.txt?",
        "  Reading.",
        "  ✓ read: " + lines[3].split(": ", 1)[1],
        "  It says: remember the milk.",
        lines[-1],
    ]
    assert "remember the milk" in lines[3]
    assert lines[-1].startswith("— completed · ")
