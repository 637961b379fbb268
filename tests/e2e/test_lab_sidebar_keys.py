"""The Shard sidebar as a keyboard and screen-reader user meets it: its tab in Lab's left
tab bar is named "Shard agents", arrow keys reach it and Enter opens it, the panel is a region
of that name, Tab reaches New agent, and axe-core finds nothing serious on the tab bar and the
panel."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

FOCUSED_TAB = "() => document.activeElement?.getAttribute('role') === 'tab' ? " \
    "document.activeElement.getAttribute('title') : null"  # fmt: skip


@pytest.fixture
def person(page: Page, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[LabPage]:
    yield LabPage(page, lab)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page, f"{request.node.name}-failure.png")


def test_the_sidebar_tab_is_named_reached_by_arrows_and_opened_by_enter(person: LabPage) -> None:
    person.open()
    page = person.page
    tabs = page.get_by_role("tablist", name="main sidebar")
    shard_tab = tabs.get_by_role("tab", name="Shard agents")
    expect(shard_tab).to_have_count(1)
    # Lab focuses the Launcher once its layout is restored: a focus given before that is taken
    # away (the failure under load: the arrows then moved nothing and no tab had the focus)
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    tabs.get_by_role("tab", selected=True).first.focus()
    for _ in range(12):  # Lab's tab bar: the arrows move the focus from tab to tab
        if page.evaluate(FOCUSED_TAB) == "Shard agents":
            break
        page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED_TAB) == "Shard agents"
    page.keyboard.press("Enter")
    panel = page.get_by_role("region", name="Shard agents")
    expect(panel).to_be_visible(timeout=15_000)
    expect(shard_tab).to_have_attribute("aria-selected", "true")
    new_agent = panel.get_by_role("button", name="New agent")
    for _ in range(8):  # from the tab into the panel: New agent is the first control
        page.keyboard.press("Tab")
        if new_agent.evaluate("el => el === document.activeElement"):
            break
    expect(new_agent).to_be_focused()
    page.keyboard.press("Enter")
    expect(panel.locator("form.shard-new-agent input").first).to_be_focused()
    assert serious_violations(page, ".jp-SideBar.jp-mod-left") == []
    assert serious_violations(page, "#shard-agents") == []
    save_screenshot(page, "e2e-lab-sidebar-keys.png")
