"""Permission prompts in a Shard notebook, by keyboard and after the fact: a new prompt takes the
focus, one key answers it (Y, or Enter on the focused Allow once), the focus moves to the next
prompt; saved and reopened with no kernel, each prompt shows how it was answered and by whom —
in JupyterLab and in Notebook 7. axe-core finds no serious violation in Shard's outputs, its
Agent button or its live strip, in either.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import PERMISSION_MIME
from tests.e2e.notebook_page import NotebookPage

pytestmark = pytest.mark.e2e

SHARD_OUTPUTS = '.jp-OutputArea-output[data-mime-type^="application/vnd.shard"]'
SHARD_UI = f"{SHARD_OUTPUTS}, .shard-agent-button, .shard-notebook-live"
"""Shard's own parts of a Shard notebook: its outputs, the toolbar's Agent button, the live strip"""
FOCUSED = (
    "() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName"
)


def test_prompts_answered_by_keyboard_then_shown_answered_without_a_kernel(
    lab: LabServer, notebook: NotebookPage, page: Page, shard_script: Script
) -> None:
    (lab.workspace / "keys.py").write_text("value = 1\n")
    edit = {"path": "keys.py", "old_string": "value = 1\n", "new_string": "value = 2\n"}
    shard_script(
        [
            {"text": "Editing keys.py.", "tool_calls": [{"name": "edit", "input": edit}]},
            {"tool_calls": [{"name": "write", "input": {"path": "keys.txt", "content": "k\n"}}]},
            {"text": "Both done."},
        ]
    )
    url = lab.notebook("prompts.ipynb", "shard", ["change keys.py and write keys.txt"])
    notebook.open(url)
    notebook.run_all()

    prompts = notebook.outputs(0).and_(page.locator(f'[data-mime-type="{PERMISSION_MIME}"]'))
    first = prompts.nth(0)
    allow = first.get_by_role("button", name="Allow once")
    expect(allow).to_be_focused(timeout=60_000)
    expect(allow).to_be_in_viewport()
    expect(allow).to_have_attribute("aria-keyshortcuts", "Y")
    save_screenshot(page, "e2e-notebook-prompts-1-focused.png")
    found = serious_violations(page, SHARD_UI)
    assert found == [], found
    presses = 0
    page.keyboard.press("y")
    presses += 1
    expect(first.locator(".shard-dialog-footer")).to_have_text(
        "✓ allowed once — by you", timeout=15_000
    )

    second = prompts.nth(1)
    expect(second.get_by_role("button", name="Allow once")).to_be_focused(timeout=30_000)
    page.keyboard.press("Enter")  # the focused button: one press again
    presses += 1
    assert presses <= 3
    notebook.wait_text(notebook.outputs(0), "Both done.")
    assert (lab.workspace / "keys.py").read_text() == "value = 2\n"
    assert (lab.workspace / "keys.txt").read_text() == "k\n"
    focused = str(page.evaluate(FOCUSED))
    assert focused != "BODY", "after the last prompt the focus fell to the page"
    notebook.save()
    lab.shutdown_kernels()

    saved = json.loads((lab.root / "prompts.ipynb").read_text())
    asked = [
        o["data"][PERMISSION_MIME]
        for o in saved["cells"][0]["outputs"]
        if PERMISSION_MIME in o.get("data", {})
    ]
    assert [a["resolution"]["decision"] for a in asked] == ["allow", "allow"]
    saved["metadata"].pop("kernelspec")  # reopened with no kernel at all
    (lab.root / "prompts-saved.ipynb").write_text(json.dumps(saved))

    for path in (
        f"lab/tree/prompts-saved.ipynb?reset&token={lab.token}",
        f"notebooks/prompts-saved.ipynb?token={lab.token}",
    ):
        page.goto(f"{lab.url}/{path}")
        reopened = page.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
        expect(reopened).to_have_count(2, timeout=90_000)
        for index in range(2):
            footer = reopened.nth(index).locator(".shard-dialog-footer")
            expect(footer).to_contain_text("✓ allowed once — by ")
        expect(page.locator(".jp-Notebook")).not_to_contain_text("can only be answered")
        expect(page.get_by_role("button", name="Allow once")).to_have_count(0)
        shot = "lab" if path.startswith("lab") else "notebook7"
        save_screenshot(page, f"e2e-notebook-prompts-2-saved-{shot}.png")


def test_in_notebook_7_one_key_answers_each_prompt(
    lab: LabServer, page: Page, shard_script: Script, request: pytest.FixtureRequest
) -> None:
    """Notebook 7 runs its shortcuts as a key goes down the page, before an output sees it: Y
    on the focused Allow once changed the cell to code there, and the prompt stayed open."""
    (lab.workspace / "keys7.py").write_text("value = 1\n")
    edit = {"path": "keys7.py", "old_string": "value = 1\n", "new_string": "value = 2\n"}
    shard_script(
        [
            {"text": "Editing keys7.py.", "tool_calls": [{"name": "edit", "input": edit}]},
            {"tool_calls": [{"name": "write", "input": {"path": "keys7.txt", "content": "k\n"}}]},
            {"text": "Both done in Notebook 7."},
        ]
    )
    lab.notebook("prompts7.ipynb", "shard", ["change keys7.py and write keys7.txt"])
    try:
        page.goto(f"{lab.url}/notebooks/prompts7.ipynb?token={lab.token}")
        expect(page.locator(".shard-agent-button")).to_be_visible(timeout=90_000)
        lab.wait_kernel_connected("prompts7.ipynb")
        page.locator(".jp-Cell .jp-InputArea-editor").first.click()
        page.keyboard.press("Shift+Enter")  # as a person runs a cell
        prompts = page.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
        allow = prompts.nth(0).get_by_role("button", name="Allow once")
        expect(allow).to_be_focused(timeout=60_000)
        found = serious_violations(page, SHARD_UI)
        assert found == [], found
        page.keyboard.press("y")
        expect(prompts.nth(0).locator(".shard-dialog-footer")).to_have_text(
            "✓ allowed once — by you", timeout=15_000
        )
        expect(prompts.nth(1).get_by_role("button", name="Allow once")).to_be_focused(
            timeout=30_000
        )
        page.keyboard.press("y")
        expect(page.locator(".jp-Notebook")).to_contain_text(
            "Both done in Notebook 7.", timeout=30_000
        )
        assert (lab.workspace / "keys7.py").read_text() == "value = 2\n"
        assert (lab.workspace / "keys7.txt").read_text() == "k\n"
        expect(page.locator(".jp-Cell").first).to_have_class(re.compile(r"jp-CodeCell"))
        save_screenshot(page, "e2e-notebook7-prompts-keys.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        lab.shutdown_kernels()
