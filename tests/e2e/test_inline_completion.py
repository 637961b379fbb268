"""Inline completion in a Lab notebook through JupyterLab's inline completer: Shard's provider
is off by default; switched on in the Inline Completer settings, typing in a code cell shows the
fake OpenAI-compatible server's answer as ghost text, and Tab accepts it into the cell. The
request carries the cells above as context."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.fixtures.fake_llm import FakeLLMServer

pytestmark = pytest.mark.e2e

SETTINGS = "/lab/api/settings/@jupyterlab/completer-extension:inline-completer"
PROVIDER = "shard-jupyterlab:inline-completion"
ANSWER = "sum(prices) / len(prices)"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def served_lab(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLMServer
) -> Iterator[LabServer]:
    server = LabServer(
        tmp_path_factory.mktemp("inline-lab"),
        {
            "KERNEL_SHARD_MODEL": "openai/fake-coder",
            "OPENAI_API_KEY": "sk-fake-for-the-test",
            "OPENAI_BASE_URL": fake_llm.openai_base_url,
        },
    )
    server.start()
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"


def test_ghost_text_appears_and_tab_accepts_it(
    browser: Browser, served_lab: LabServer, fake_llm: FakeLLMServer
) -> None:
    lab = served_lab
    raw = {"providers": {PROVIDER: {"enabled": True}}}
    lab.api("PUT", SETTINGS, {"raw": json.dumps(raw)})
    for _ in range(8):  # a slow machine may fetch more than once while the line is typed
        fake_llm.push({"text": ANSWER})
    url = lab.notebook("prices.ipynb", "python3", ["prices = [3, 4, 5]", ""])
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    try:
        page.goto(url)
        expect(cells).to_have_count(2, timeout=90_000)
        cells.nth(1).locator(".cm-content").click()
        page.keyboard.insert_text("mean = ")
        ghost = cells.nth(1).locator(".jp-GhostText")
        expect(ghost).to_have_text(ANSWER, timeout=30_000)
        save_screenshot(page, "e2e-inline-completion-ghost.png")
        page.keyboard.press("Tab")
        editor = cells.nth(1).locator(".cm-content")
        expect(editor).to_have_text(f"mean = {ANSWER}")
        expect(ghost).to_have_count(0)
        last = fake_llm.requests[-1].body
        assert "tools" not in last
        assert "tool_choice" not in last
        prompt = last["messages"][1]["content"]
        assert "<cell>\nprices = [3, 4, 5]\n</cell>" in prompt
        assert prompt.endswith("mean = <cursor/>")
    except Exception:
        save_screenshot(page, "e2e-inline-completion-failure.png")
        raise
    finally:
        context.close()
        lab.shutdown_kernels()
