"""Rewind and review in the %%shard widget (Lab, a real browser): the widget's turn has "Rewind
to here" and "Changes" like the Lab chat (the same view, the same `rewind` command through the
widget's controller); the review shows the file's hunk, the rewind puts the file back byte for
byte and the widget's transcript marks it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e


def test_the_widget_reviews_and_rewinds_its_turn(
    notebook: NotebookPage, lab: LabServer, script_file: Script, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    before = (work / "calc.py").read_bytes()
    fix = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    script = script_file([{"tool_calls": [{"name": "edit", "input": fix}]}, {"text": "Fixed."}])
    url = lab.notebook(
        "widget-rewind.ipynb",
        "python3",
        [
            "%load_ext shard_kernel",
            f"%shard new --cwd {work} --model scripted/{script} --allow 'Edit(**)'",
            "%%shard\nfix add",
        ],
    )
    notebook.open(url)
    notebook.run_all()
    widget = notebook.cell(2).locator(".shard-agent")
    expect(widget).to_contain_text("Fixed.", timeout=90_000)
    assert b"a + b" in (work / "calc.py").read_bytes()

    turn = widget.locator(".shard-msg-user").filter(has_text="fix add")
    turn.locator(".shard-turn-changes").click()
    review = widget.locator(".shard-review")
    expect(review).to_contain_text("Changes in turn 1", timeout=30_000)
    hunk = review.locator('.shard-review-file[data-path="calc.py"] .shard-review-hunk')
    expect(hunk).to_have_count(1)
    expect(hunk.locator(".shard-diff-add")).to_have_text("+    return a + b")

    turn.locator(".shard-rewind-here").click()
    widget.locator(".shard-rewind-choose .shard-rewind-code").click()
    expect(widget.locator(".shard-rewind-result")).to_contain_text("Rewound files", timeout=30_000)
    assert (work / "calc.py").read_bytes() == before
    marked = widget.locator(".shard-command-item").filter(has_text="rewind (files)")
    expect(marked).to_contain_text("Restored: calc.py", timeout=30_000)
    save_screenshot(notebook.page, "e2e-widget-rewind.png")
