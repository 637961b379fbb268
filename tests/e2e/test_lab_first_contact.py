"""A first run with no key and no model, in the person's own folder (a JupyterLab started without
KERNEL_SHARD_MODEL): a Launcher Shard notebook's prompt answers with how to configure a model in
JupyterLab, never with the scripted demo's replies (they are written for the demo's project)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from shard_core.providers.models import FIRST_CONTACT
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

KERNEL_IDLE = """() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel
  ?.status === 'idle'"""


@pytest.fixture
def bare_lab(tmp_path: Path) -> Iterator[LabServer]:
    server = LabServer(tmp_path / "bare", {})  # no model, no key: what a new user has
    server.start()
    (server.root / "README.md").write_text("# my project\n")
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"


def test_a_prompt_with_no_model_says_how_to_configure_one_in_jupyterlab(
    bare_lab: LabServer, page: Page, request: pytest.FixtureRequest
) -> None:
    lab_page = LabPage(page, bare_lab)
    try:
        lab_page.open()
        page.locator('.jp-LauncherCard[title="Shard"]').first.click()
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.click(timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        page.keyboard.type("explain this repo")
        page.keyboard.press("Shift+Enter")
        cell = page.locator(".jp-Notebook .jp-Cell").first
        expect(cell.locator(".jp-OutputArea")).to_contain_text(
            "JupyterLab: in the environment of `jupyter lab`, then restart it", timeout=60_000
        )
        expect(cell).to_contain_text("New agent form")
        expect(cell).not_to_contain_text("[scripted demo]")
        assert "JupyterLab" in FIRST_CONTACT
        save_screenshot(page, "e2e-first-contact-in-lab.png")
    except Exception:
        save_screenshot(page, f"{request.node.name}-failure.png")
        raise
    finally:
        bare_lab.shutdown_kernels()
