"""The agent widget's composer in an ordinary Python notebook (Lab, a real browser, a fake
OpenAI-compatible server): with a pandas DataFrame `df` in the notebook's kernel, the person
types `@var:d`, takes `@var:df` from the completion list with the keyboard, pastes a PNG (a
removable thumbnail) and presses Enter while the agent is idle: a prompt starts a turn, and its
request carries the DataFrame's summary labelled with its source and the image as an image
part. A missing variable is refused in the widget, the text and image kept, nothing sent.
`@cell:1` is the cell as the page shows it, an unsaved edit included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import save_screenshot, screenshot_if_failed
from tests.e2e.lab import LabServer, served
from tests.e2e.lab_page import PNG, paste_png
from tests.e2e.notebook_page import NotebookPage
from tests.fixtures.fake_llm import FakeLLMServer

pytestmark = pytest.mark.e2e

FRAME = 'import pandas as pd\ndf = pd.DataFrame({"city": ["Oslo", "Lima"], "temp": [3.5, 18.0]})'
BOX = ".jp-Notebook .shard-agent .shard-composer-input"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def served_lab(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeLLMServer
) -> Iterator[LabServer]:
    keys = {"OPENAI_API_KEY": "sk-fake-for-the-test", "OPENAI_BASE_URL": fake_llm.openai_base_url}
    with served(tmp_path_factory.mktemp("widget-composer-lab"), keys) as server:
        yield server


@pytest.fixture
def page_in(page: Page, served_lab: LabServer, request: pytest.FixtureRequest) -> Iterator[Page]:
    yield page
    screenshot_if_failed(page, request)
    served_lab.shutdown_kernels()


def _user_parts(body: dict[str, object]) -> list[dict[str, object]]:
    """The user messages' parts (a message of one text is a string on OpenAI's wire)."""
    messages = body["messages"]
    assert isinstance(messages, list)
    parts: list[dict[str, object]] = []
    for message in messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        parts += content if isinstance(content, list) else [{"type": "text", "text": content}]
    return parts


@pytest.mark.parametrize("where", ["gateway", "local"])
def test_the_widget_composer_sends_var_df_and_a_pasted_png(
    page_in: Page, served_lab: LabServer, fake_llm: FakeLLMServer, tmp_path: Path, where: str
) -> None:
    """A gateway agent (`%shard new` in Lab) and one in the notebook's own kernel (`--local`)."""
    lab = served_lab
    for reply in ("Hello.", "Two cities, one plot.", "It builds df."):
        fake_llm.push({"text": reply})
    work = tmp_path / "work"
    work.mkdir()
    url = lab.notebook(
        f"frame-widget-{where}.ipynb",
        "python3",
        [
            FRAME,
            "%load_ext shard_kernel",
            f"%shard new --cwd {work} --model openai/fake-model"
            + (" --local" if where == "local" else ""),
            "%%shard\nsay hello",
        ],
    )
    notebook = NotebookPage(page_in)
    notebook.open(url)
    notebook.run_all()
    widget = notebook.cell(3).locator(".shard-agent")
    expect(widget).to_contain_text("Hello.", timeout=90_000)
    fake_llm.wait_idle()
    before = len(fake_llm.requests)
    box = widget.locator(".shard-composer-input")
    expect(box).to_be_enabled()

    # a missing variable: refused in the widget, text and image kept, nothing sent
    paste_png(page_in, BOX)
    thumbnails = widget.locator(".shard-composer-images img")
    expect(thumbnails).to_have_count(1)
    box.fill("what about @var:nothere")
    box.press("Enter")
    state = widget.locator(".shard-steer-state")
    expect(state).to_contain_text("there is no variable nothere in", timeout=30_000)
    expect(box).to_have_value("what about @var:nothere")
    expect(thumbnails).to_have_count(1)
    assert len(fake_llm.requests) == before

    # @var: completed from the notebook's own kernel, chosen with the keyboard
    box.fill("plot ")
    box.press_sequentially("@var:d")
    menu = widget.locator(".shard-slash-menu")
    expect(menu.locator("li").filter(has_text="@var:df")).to_be_visible(timeout=30_000)
    expect(menu.locator("li[aria-selected=true]")).to_contain_text("@var:df")
    box.press("Tab")
    expect(box).to_have_value("plot @var:df ")
    box.press_sequentially("by city")
    save_screenshot(page_in, f"e2e-widget-composer-{where}.png")
    box.press("Enter")
    expect(widget).to_contain_text("Two cities, one plot.", timeout=60_000)
    expect(thumbnails).to_have_count(0)  # taken by the prompt
    shown = widget.locator(".shard-msg-user .shard-msg-images img")
    expect(shown).to_have_attribute("src", f"data:image/png;base64,{PNG}")

    fake_llm.wait_idle()
    [sent] = [r.body for r in fake_llm.requests[before:]]
    texts = [str(p.get("text", "")) for p in _user_parts(sent)]
    [summary] = [t for t in texts if f'label="@var:df from frame-widget-{where}.ipynb"' in t]
    assert summary.startswith(
        f'<context kind="variable" label="@var:df from frame-widget-{where}.ipynb">\ntype: pandas.'
    )
    assert "DataFrame\nshape: (2, 2)\ndtypes:" in summary
    assert "Oslo" in summary
    assert "temp" in summary
    assert "plot @var:df by city" in texts
    assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}} in (
        _user_parts(sent)
    )

    # @cell: reads the cell as the page shows it: an edit not saved yet
    page_in.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.sharedModel"
        ".setSource('df = make_frame()  # edited, not saved')"
    )
    before = len(fake_llm.requests)
    box.fill("what does @cell:1 do?")
    box.press("Enter")
    expect(widget).to_contain_text("It builds df.", timeout=60_000)
    fake_llm.wait_idle()
    [sent] = [r.body for r in fake_llm.requests[before:]]
    texts = [str(p.get("text", "")) for p in _user_parts(sent)]
    [cell] = [t for t in texts if f'label="@cell:1 from frame-widget-{where}.ipynb"' in t]
    assert "df = make_frame()  # edited, not saved" in cell
