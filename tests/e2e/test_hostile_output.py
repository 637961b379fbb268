"""Tool and model output is untrusted: HTML in it shows as text, and no script in it ever runs.

Every payload sets `window.__shardXss` if it runs; the tests then look for the payloads' elements
anywhere in the page, and for their source shown as text where the output is rendered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Script
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e

HOSTILE = (
    '<img src=x onerror="window.__shardXss=1">\n'
    "<script>window.__shardXss=2</script>\n"
    '<a href="javascript:window.__shardXss=3">click me</a>\n'
    '<svg xmlns="http://www.w3.org/2000/svg"><script>window.__shardXss=4</script></svg>\n'
    '<svg onload="window.__shardXss=5"></svg>\n'
)
INERT = {"flag": None, "scripts": 0, "elementsWithPayload": [], "images": 0, "jsLinks": 0}


def assert_inert(notebook: NotebookPage) -> None:
    for link in notebook.page.get_by_text("click me").all():
        if link.is_visible():  # folded inputs (a dialog's "Input") are not clickable
            link.click()  # plain text: nothing happens; a javascript: link would set the flag
    notebook.page.wait_for_timeout(300)
    assert notebook.hostile_elements() == INERT


def test_hostile_tool_output_is_text_in_a_shard_notebook(
    lab: LabServer, notebook: NotebookPage, shard_script: Script
) -> None:
    (lab.workspace / "hostile.html").write_text(HOSTILE)
    shard_script(
        [
            {"tool_calls": [{"name": "read", "input": {"path": "hostile.html"}}]},
            {"tool_calls": [{"name": "write", "input": {"path": "copy.html", "content": HOSTILE}}]},
            {"text": "Done."},
        ]
    )
    notebook.open(lab.notebook("hostile.ipynb", "shard", ["read hostile.html, then copy it"]))
    notebook.run_all()
    outputs = notebook.cell(0).locator(".jp-OutputArea")
    dialog = outputs.locator(".shard-permission")
    dialog.wait_for(timeout=60_000)
    expect(outputs).to_contain_text('<img src=x onerror="window.__shardXss=1">')
    # the write is shown as the diff it would make (the whole input one click away)
    added = dialog.locator(".shard-permission-preview .shard-diff-add")
    expect(added.nth(1)).to_have_text("+<script>window.__shardXss=2</script>")
    expect(dialog.locator(".shard-permission-input")).to_contain_text("window.__shardXss=2")
    assert_inert(notebook)
    dialog.get_by_role("button", name="Deny").click()
    expect(outputs).to_contain_text("Done.")
    assert not (lab.workspace / "copy.html").exists()
    assert_inert(notebook)


def test_hostile_tool_output_and_model_text_are_text_in_the_agent_widget(
    lab: LabServer, notebook: NotebookPage, script_file: Script, tmp_path: Path
) -> None:
    (tmp_path / "hostile.html").write_text(HOSTILE)
    script = script_file(
        [
            {"tool_calls": [{"name": "read", "input": {"path": "hostile.html"}}]},
            {"text": f"The file says:\n\n{HOSTILE}\nEnd of file."},
        ]
    )
    notebook.open(
        lab.notebook(
            "hostile-magics.ipynb",
            "python3",
            [
                "%load_ext shard_kernel",
                f"%shard new --cwd {tmp_path} --model scripted/{script}",
                "%%shard\nwhat is in hostile.html?",
            ],
        )
    )
    notebook.run_all()
    widget = notebook.cell(2).locator(".shard-agent")
    expect(widget).to_contain_text("End of file.", timeout=60_000)
    expect(widget.locator(".shard-tool")).to_contain_text('<svg onload="window.__shardXss=5">')
    expect(widget.locator(".shard-msg-assistant")).to_contain_text("<script>window.__shardXss=2")
    assert_inert(notebook)


def test_hostile_model_text_is_text_in_a_shard_notebook(
    lab: LabServer, notebook: NotebookPage, shard_script: Script
) -> None:
    """The model echoing a tool's HTML (a prompt injection's way in) must stay text too."""
    shard_script([{"text": f"The file says:\n\n{HOSTILE}\nEnd of file."}])
    notebook.open(lab.notebook("hostile-text.ipynb", "shard", ["what does the file say?"]))
    notebook.run_all()
    outputs = notebook.cell(0).locator(".jp-OutputArea")
    expect(outputs).to_contain_text("End of file.", timeout=60_000)
    assert_inert(notebook)
    expect(outputs).to_contain_text('<img src=x onerror="window.__shardXss=1">')
