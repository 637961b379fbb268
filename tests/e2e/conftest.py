"""One JupyterLab server and one Debian chromium for the whole e2e run; a fresh page per test.

Chromium is the distribution's (`apt-get install -y chromium`), launched by path: never
`playwright install`. A failing test leaves a screenshot in test-artifacts/. Teardown stops Lab
through its API and fails if any process it started had to be killed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.e2e.lab import LabServer
from tests.e2e.notebook_page import NotebookPage

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

Script = Callable[[list[dict[str, Any]]], Path]


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    base = tmp_path_factory.mktemp("lab")
    server = LabServer(
        base,
        {
            # the shard kernels Lab starts play this script (`shard_script` writes it per test)
            "KERNEL_SHARD_MODEL": f"scripted/{base / 'shard-kernel-script.json'}",
            "KERNEL_SHARD_CWD": str(base / "workspace"),
        },
    )
    server.start()
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail("e2e needs Debian's chromium: apt-get update && apt-get install -y chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def context(browser: Browser) -> Iterator[BrowserContext]:
    """One context: its HTTP cache spares every test but the first Lab's bundle download."""
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    tab = context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def notebook(page: Page, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[NotebookPage]:
    yield NotebookPage(page)
    screenshot_if_failed(page, request)
    lab.shutdown_kernels()  # each test's kernels end with it


def screenshot_if_failed(page: Page, request: pytest.FixtureRequest) -> None:
    """Keeps the page as it was when the test failed (`test-artifacts/<test>-failure.png`)."""
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page, f"{request.node.name}-failure.png")


def save_screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def shard_script(lab: LabServer) -> Script:
    """Writes the steps the next `shard` kernel Lab starts will play."""

    def write(steps: list[dict[str, Any]]) -> Path:
        path = lab.base / "shard-kernel-script.json"
        path.write_text(json.dumps({"name": "e2e", "steps": steps}))
        return path

    return write


@pytest.fixture
def script_file(tmp_path: Path) -> Script:
    """A script file for `%shard new --model scripted/<file>`."""

    def write(steps: list[dict[str, Any]]) -> Path:
        path = tmp_path / "script.json"
        path.write_text(json.dumps({"name": "e2e", "steps": steps}))
        return path

    return write


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.rep_call = report  # type: ignore[attr-defined]
    return report
