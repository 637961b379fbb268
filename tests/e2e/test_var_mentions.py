"""`@var:df` in the Lab chat composer: a pandas DataFrame in the open notebook's own Python kernel
reaches the model's request (a fake OpenAI-compatible server) as its summary, named with its
source; a missing variable and a busy kernel are clear messages that send nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage
from tests.fixtures.fake_llm import FakeLLMServer

pytestmark = pytest.mark.e2e

NAME = "frame.ipynb"
FRAME = 'import pandas as pd\ndf = pd.DataFrame({"city": ["Oslo", "Lima"], "temp": [3.5, 18.0]})'


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer([{"text": "Two cities and their temperatures."}]) as server:
        yield server


@pytest.fixture(scope="module")
def served_lab(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLMServer
) -> Iterator[LabServer]:
    base = tmp_path_factory.mktemp("var-lab")
    server = LabServer(
        base,
        {
            "KERNEL_SHARD_MODEL": "openai/fake-model",
            "OPENAI_API_KEY": "sk-fake-for-the-test",
            "OPENAI_BASE_URL": fake_llm.openai_base_url,
        },
    )
    server.start()
    yield server
    leftovers = server.stop()
    assert leftovers == [], f"processes left running after Lab stopped: {leftovers}"


def test_var_mention_reaches_the_request_as_the_dataframes_summary(
    browser: Browser, served_lab: LabServer, fake_llm: FakeLLMServer
) -> None:
    lab = served_lab
    url = lab.notebook(NAME, "python3", [FRAME, "import time\ntime.sleep(60)"])
    agent = lab.api("POST", "/shard/api/agents", {"cwd": str(lab.root), "name": "vars"})
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    person = LabPage(page, lab)
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    try:
        page.goto(url)
        expect(cells).to_have_count(2, timeout=90_000)
        ready = '.jp-NotebookPanel-toolbar .jp-DebuggerBugButton[title="Enable Debugger"]'
        page.locator(ready).first.wait_for(state="attached", timeout=90_000)
        cells.nth(0).locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        expect(cells.nth(0).locator(".jp-InputPrompt")).to_contain_text("[1]", timeout=60_000)

        chat = person.open_agent(agent["id"])
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)
        state = chat.locator(".shard-steer-state")

        person.send(chat, "what is in @var:nothere?")  # a missing variable: said, nothing sent
        expect(state).to_have_text(f"there is no variable nothere in {NAME}'s kernel")
        expect(box).to_have_value("what is in @var:nothere?")
        assert fake_llm.requests == []

        person.send(chat, "what is in @var:df?")
        expect(chat).to_contain_text("Two cities and their temperatures.", timeout=60_000)
        save_screenshot(page, "e2e-var-mention-answered.png")
        fake_llm.wait_idle()
        [sent] = fake_llm.requests
        users = [m for m in sent.body["messages"] if m["role"] == "user"]
        text = "\n".join(
            m["content"]
            if isinstance(m["content"], str)
            else "\n".join(part.get("text", "") for part in m["content"])
            for m in users
        )
        start = text.index('<context kind="variable" label="@var:df from frame.ipynb">\n')
        block = text[start : text.index("</context>", start)]
        assert block.splitlines()[1:4] == ["type: pandas.DataFrame", "shape: (2, 2)", "dtypes:"]
        assert "float64" in block  # temp's dtype
        assert "head():" in block
        assert "Oslo" in block
        assert "18.0" in block
        assert text.rstrip().endswith("what is in @var:df?")

        # a busy kernel is said at once, not waited on
        page.locator(".lm-TabBar-tab", has_text=NAME).first.click()
        cells.nth(1).locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        expect(cells.nth(1).locator(".jp-InputPrompt")).to_contain_text("[*]", timeout=30_000)
        page.locator(".lm-TabBar-tab", has_text="Shard:").first.click()
        person.send(chat, "and now @var:df?")
        expect(state).to_have_text(
            f"the kernel of {NAME} is busy running a cell: send @var: once it is idle"
        )
        assert len(fake_llm.requests) == 1
    finally:
        context.close()
        lab.shutdown_kernels()
        for made in lab.api("GET", "/shard/api/agents")["agents"]:
            lab.api("DELETE", f"/shard/api/agents/{made['id']}")
