"""A workspace grant outlives its notebook: "Always allow in this workspace" on a prompt in one
Launcher Shard notebook says it saved the rule for this workspace, and a second Launcher
notebook in the same folder (another agent) makes the same call without being asked. `/grants`
in that notebook lists the grant with its scope; the sidebar's "Workspace grants" lists it too
and revokes it, after which the second agent asks again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from shard_core.engine.permissions.grants import GrantStore
from tests.e2e.conftest import Script, save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import PERMISSION_MIME, RENDER_MIME, LabPage

pytestmark = pytest.mark.e2e

CURRENT_IDLE = """() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel
  ?.status === 'idle'"""


def write(content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write", "input": {"path": "note.txt", "content": content}}]}


@pytest.fixture
def lab_page(page: Page, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[LabPage]:
    yield LabPage(page, lab)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page, f"{request.node.name}-failure.png")
    lab.shutdown_kernels()


def launch_shard_notebook(lab_page: LabPage) -> Locator:
    """A new Shard notebook from the Launcher, its kernel idle; returns its panel."""
    page = lab_page.page
    lab_page.command("launcher:create")
    page.locator('.jp-Launcher:visible .jp-LauncherCard[title="Shard"]').first.click()
    panel = page.locator(".jp-NotebookPanel:visible")
    panel.locator(".jp-Cell .cm-content").first.wait_for(timeout=60_000)
    page.wait_for_function(CURRENT_IDLE, timeout=90_000)
    return panel


def run(page: Page, panel: Locator, index: int, text: str) -> Locator:
    """Types `text` into cell `index` and runs it; returns the cell."""
    cell = panel.locator(".jp-Cell").nth(index)
    cell.locator(".cm-content").click()
    page.keyboard.type(text)
    page.keyboard.press("Shift+Enter")
    return cell


def test_a_workspace_grant_is_honoured_by_a_second_launcher_notebook_and_revoked_in_the_panel(
    lab: LabServer, lab_page: LabPage, shard_script: Script
) -> None:
    page = lab_page.page
    home = lab.base / "shard-home"
    shard_script([write("one\n"), {"text": "Wrote one."}])
    lab_page.open()

    first = launch_shard_notebook(lab_page)
    cell = run(page, first, 0, "write note.txt")
    prompt = cell.locator(f'.jp-OutputArea-output[data-mime-type="{PERMISSION_MIME}"]')
    always = prompt.get_by_role("button", name="Always allow in this workspace")
    expect(always).to_be_visible(timeout=60_000)
    rule = prompt.locator(".shard-rule-input").input_value()
    always.click()
    footer = prompt.locator(".shard-dialog-footer")
    expect(footer).to_have_text(
        f"✓ always allowed — by you · saved for this workspace: {rule} "
        f"(every agent in {os.path.realpath(lab.workspace)})",
        timeout=15_000,
    )
    expect(cell).to_contain_text("Wrote one.", timeout=30_000)
    assert (lab.workspace / "note.txt").read_text() == "one\n"
    assert [g.text for g in GrantStore.for_workspace(lab.workspace, home).grants()] == [rule]
    save_screenshot(page, "e2e-workspace-grant-1-saved.png")

    # the second notebook's kernel plays this script: the same write, then one after the revoke
    shard_script([write("two\n"), {"text": "Wrote two."}, write("three\n"), {"text": "Asked."}])
    second = launch_shard_notebook(lab_page)
    cell = run(page, second, 0, "write note.txt again")
    expect(cell).to_contain_text("Wrote two.", timeout=60_000)
    assert cell.locator(f'[data-mime-type="{PERMISSION_MIME}"]').count() == 0  # never asked
    card = cell.locator(f'[data-mime-type="{RENDER_MIME}"] .shard-tool').first
    expect(card.locator(".shard-tool-status")).to_have_text("done")
    assert (lab.workspace / "note.txt").read_text() == "two\n"
    page.wait_for_function(CURRENT_IDLE, timeout=30_000)
    listed = run(page, second, 1, "/grants")
    expect(listed).to_contain_text(f"{rule} (scope: workspace", timeout=30_000)
    save_screenshot(page, "e2e-workspace-grant-2-honoured.png")

    lab_page.show_sidebar()
    section = lab_page.sidebar.locator(".shard-grants-section")
    section.locator("summary").click()
    folder = section.locator(
        f'.shard-grants-folder[data-workspace="{os.path.realpath(lab.workspace)}"]'
    )
    expect(folder.locator(".shard-grant-rule")).to_have_text([rule], timeout=15_000)
    expect(folder.locator(".shard-grant-by")).to_contain_text(f" · {lab_page.tab_label()}")
    save_screenshot(page, "e2e-workspace-grant-3-sidebar.png")
    folder.get_by_role("button", name=f"Revoke {rule} in").click()
    expect(section).to_contain_text("None:", timeout=15_000)
    assert GrantStore.for_workspace(lab.workspace, home).grants() == []

    page.wait_for_function(CURRENT_IDLE, timeout=30_000)
    cell = run(page, second, 2, "write note.txt once more")
    asked = cell.locator(f'[data-mime-type="{PERMISSION_MIME}"]')
    expect(asked.get_by_role("button", name="Deny")).to_be_visible(timeout=60_000)
    asked.get_by_role("button", name="Deny").click()
    expect(cell).to_contain_text("Asked.", timeout=30_000)
    assert (lab.workspace / "note.txt").read_text() == "two\n"
