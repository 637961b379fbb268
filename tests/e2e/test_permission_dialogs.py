"""Permission prompts answered in JupyterLab: the %%shard AgentWidget, the shard kernel's dialog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from playwright.sync_api import expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage
from tests.integration.kernel.agent_client import AgentClient

pytestmark = pytest.mark.e2e

FIX_TEXT = "The greeting drops the name, nam is a typo for name. Fixing it now."
RECORD_STREAM = """() => {
  window.__shardStream = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(".shard-agent .shard-streaming .shard-markdown")) {
      window.__shardStream.push(el.textContent);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def test_magics_widget_streams_asks_and_the_allowed_edit_lands(
    lab: LabServer, notebook: NotebookPage, script_file: Script, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "greet.py").write_text('def greet(name):\n    return "Hello " + nam\n')
    edit = {"path": "greet.py", "old_string": "+ nam\n", "new_string": "+ name\n"}
    script = script_file(
        [
            {"tool_calls": [{"name": "read", "input": {"path": "greet.py"}}]},
            {"text": FIX_TEXT, "delay": 1.5, "tool_calls": [{"name": "edit", "input": edit}]},
            {"text": "Fixed greet.py."},
        ]
    )
    url = lab.notebook(
        "magics.ipynb",
        "python3",
        [
            "%load_ext shard_kernel",
            f"%shard new --cwd {work} --model scripted/{script}",
            "%%shard\nfix the typo in greet.py",
        ],
    )
    notebook.open(url)
    notebook.page.evaluate(RECORD_STREAM)
    notebook.run_all()

    widget = notebook.cell(2).locator(".shard-agent")
    dialog = widget.locator(".shard-permission")
    dialog.wait_for(timeout=60_000)
    streamed = notebook.page.evaluate("() => window.__shardStream")
    partial = sorted({text for text in streamed if text and text != FIX_TEXT}, key=len)
    assert partial, f"no partial text was seen while streaming: {streamed}"
    assert all(FIX_TEXT.startswith(text) for text in partial), partial
    expect(widget.locator(".shard-msg-assistant").last).to_contain_text("Fixing it now.")

    expect(dialog.locator(".shard-tool-name")).to_have_text("edit")
    # the edit is shown as the diff it would make; the whole input sits one click away
    expect(dialog.locator(".shard-permission-preview .shard-diff-del")).to_contain_text(
        'return "Hello " + nam'
    )
    expect(dialog.locator(".shard-permission-preview .shard-diff-add")).to_contain_text(
        'return "Hello " + name'
    )
    shown_input = dialog.locator(".shard-permission-input").text_content() or ""
    assert '"path": "greet.py"' in shown_input
    assert '"old_string": "+ nam\\n"' in shown_input
    assert "nam\n" in (work / "greet.py").read_text()
    save_screenshot(notebook.page, "e2e-magics-1-permission-dialog.png")

    dialog.get_by_role("button", name="Allow once").click()
    diff = widget.locator(".shard-diff")
    expect(diff).to_contain_text("greet.py", timeout=30_000)
    expect(diff.locator(".shard-diff-add")).to_contain_text('return "Hello " + name')
    expect(diff.locator(".shard-diff-del")).to_contain_text('return "Hello " + nam')
    expect(widget).to_contain_text("Fixed greet.py.")
    assert (work / "greet.py").read_text() == 'def greet(name):\n    return "Hello " + name\n'
    save_screenshot(notebook.page, "e2e-magics-2-edit-and-diff.png")


def test_shard_kernel_dialog_resumes_the_cell_and_closes_when_another_client_answers(
    lab: LabServer, notebook: NotebookPage, shard_script: Script
) -> None:
    shard_script(
        [
            {"tool_calls": [{"name": "write", "input": {"path": "one.txt", "content": "1\n"}}]},
            {"text": "Wrote one."},
            {"tool_calls": [{"name": "write", "input": {"path": "two.txt", "content": "2\n"}}]},
            {"text": "Wrote two."},
        ]
    )
    url = lab.notebook("dialog.ipynb", "shard", ["write one.txt", "write two.txt"])
    notebook.open(url)
    kc = BlockingKernelClient(connection_file=str(lab.kernel_connection_file("dialog.ipynb")))
    kc.load_connection_file()
    kc.start_channels()
    try:
        other = AgentClient(kc, "client-b")
        other.attach()
        notebook.run_all()

        first = notebook.cell(0).locator(".shard-permission")
        first.wait_for(timeout=60_000)
        expect(first.locator(".shard-tool-name")).to_have_text("write")
        expect(notebook.cell(0).locator(".jp-InputPrompt")).to_contain_text("*")
        # the dialog took the place of the prompt's text fallback: one output, not two
        expect(notebook.cell(0).locator(".jp-OutputArea")).not_to_contain_text(
            "Answer in a Shard client"
        )
        assert not (lab.workspace / "one.txt").exists()
        first.get_by_role("button", name="Allow once").click()
        expect(notebook.cell(0).locator(".jp-OutputArea")).to_contain_text("Wrote one.")
        # Lab's Shard renderer answered for this tab, over its own `shard` comm
        expect(first.locator(".shard-dialog-footer")).to_have_text("✓ allowed once — by you")
        assert (lab.workspace / "one.txt").read_text() == "1\n"

        second = notebook.cell(1).locator(".shard-permission")
        second.wait_for(timeout=30_000)
        other.wait_for(lambda: _request_for(other, "two.txt") is not None)
        request = _request_for(other, "two.txt")
        assert request is not None
        reply = other.command(
            {
                "type": "permission_response",
                "request_id": request["request_id"],
                "decision": "allow",
                "client_id": "client-b",
            }
        )
        assert reply["ok"] is True
        expect(second.locator(".shard-dialog-footer")).to_have_text("✓ allowed once — by client-b")
        expect(second.get_by_role("button")).to_have_count(0)
        expect(notebook.cell(1).locator(".jp-OutputArea")).to_contain_text("Wrote two.")
        assert (lab.workspace / "two.txt").read_text() == "2\n"
        save_screenshot(notebook.page, "e2e-shard-kernel-dialogs.png")

        notebook.save()  # reopened, the saved outputs' dialogs come back from the kernel's state
        saved = json.loads((lab.root / "dialog.ipynb").read_text())
        assert "widgets" not in saved["metadata"]  # not from widget state saved in the file
        notebook.open(url)
        expect(notebook.cell(1).locator(".shard-dialog-footer")).to_have_text(
            "✓ allowed once — by client-b"
        )
        expect(notebook.cell(0).locator(".shard-dialog-footer")).to_have_text(
            "✓ allowed once — by you"
        )
    finally:
        kc.stop_channels()


def _request_for(client: AgentClient, path: str) -> dict[str, object] | None:
    return next(
        (
            e
            for e in client.events
            if e["type"] == "permission_request" and e["input"].get("path") == path
        ),
        None,
    )
