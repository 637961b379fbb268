"""Context from the Lab chat composer reaching the model's request (a fake OpenAI-compatible
server): `@var:df`, a pandas DataFrame in the open notebook's own Python kernel, as its summary
named with its source, its name completed from the kernel's own namespace (a missing variable
and a busy kernel are clear messages that send nothing); `@cell:`, `@output:` and `@file:` (a
path outside the agent's folder refused, and a symbolic link inside it that points outside); a
pasted PNG as an image part, drawn under the prompt (again after a reload), which `shard
session request` rebuilds byte-equal."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from shard_core.providers.wire import canonical_json
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import PNG, LabPage, paste_png
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

        # @var: completes the names of the kernel's variables (its module `pd` is not one)
        box.fill("")
        box.press_sequentially("what is in @var:")
        options = chat.locator(".shard-mention-item code")
        expect(options).to_have_text(["@var:df"])
        expect(chat.locator(".shard-mention-item")).to_contain_text("DataFrame")
        box.press_sequentially("z")
        expect(options).to_have_count(0)
        box.press("Backspace")
        expect(options).to_have_text(["@var:df"])
        box.press("Tab")
        expect(box).to_have_value("what is in @var:df ")
        box.press_sequentially("?")
        box.press("Enter")
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
        assert text.rstrip().endswith("what is in @var:df ?")

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


def test_a_pasted_png_is_an_image_part_and_the_log_rebuilds_the_request(
    browser: Browser, served_lab: LabServer, fake_llm: FakeLLMServer
) -> None:
    lab = served_lab
    fake_llm.push({"text": "One white pixel."})
    before = len(fake_llm.requests)
    agent = lab.api("POST", "/shard/api/agents", {"cwd": str(lab.root), "name": "pixels"})
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    person = LabPage(page, lab)
    try:
        person.open()
        chat = person.open_agent(agent["id"])
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)
        paste_png(page, f"#shard-chat-{agent['id']} .shard-composer-input")
        thumbnails = chat.locator(".shard-composer-images img")
        expect(thumbnails).to_have_count(1)
        save_screenshot(page, "e2e-chat-pasted-image.png")
        person.send(chat, "what is in this screenshot?")
        expect(chat).to_contain_text("One white pixel.", timeout=60_000)
        expect(thumbnails).to_have_count(0)  # taken by the prompt
        # the transcript shows the image under the prompt, and again after a reload (reattach)
        shown = chat.locator(".shard-msg-user .shard-msg-images img")
        expect(shown).to_have_count(1)
        expect(shown).to_have_attribute("src", f"data:image/png;base64,{PNG}")
        person.open()  # a new page: a client that attaches after the turn
        chat = person.open_agent(agent["id"])
        expect(chat).to_contain_text("One white pixel.", timeout=60_000)
        shown = chat.locator(".shard-msg-user .shard-msg-images img")
        expect(shown).to_have_attribute("src", f"data:image/png;base64,{PNG}")
        save_screenshot(page, "e2e-chat-prompt-image-reattached.png")
        fake_llm.wait_idle()
        bodies = [r.body for r in fake_llm.requests[before:]]
        assert len(bodies) == 1
        parts = [
            part
            for message in bodies[0]["messages"]
            if message["role"] == "user" and isinstance(message["content"], list)
            for part in message["content"]
        ]
        assert {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}} in parts
        home = Path(lab.env["SHARD_HOME"])
        [log] = list(home.glob(f"agents/{agent['id']}/sessions/*.jsonl"))
        out = subprocess.run(
            [sys.executable, "-m", "shard_kernel.cli", "session", "request", str(log), "--all"],
            capture_output=True,
            text=True,
            check=False,
            env={"SHARD_HOME": str(home), "PATH": "/usr/bin:/bin"},
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines() == [canonical_json(b) for b in bodies]
    finally:
        context.close()
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")


def test_cell_and_file_mentions_reach_the_request_and_a_path_outside_is_refused(
    browser: Browser, served_lab: LabServer, fake_llm: FakeLLMServer
) -> None:
    lab = served_lab
    fake_llm.push({"text": "The cell reads the notes."})
    (lab.root / "notes.txt").write_text("the threshold is 42\n")
    (lab.base / "outside.txt").write_text("not for the agent\n")
    (lab.root / "link.txt").symlink_to(lab.base / "outside.txt")  # inside, pointing out
    url = lab.notebook("cells.ipynb", "python3", ["threshold = 42", "print(threshold)"])
    agent = lab.api("POST", "/shard/api/agents", {"cwd": str(lab.root), "name": "mentions"})
    before = len(fake_llm.requests)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    person = LabPage(page, lab)
    try:
        page.goto(url)
        cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        expect(cells).to_have_count(2, timeout=90_000)
        cells.nth(1).click()  # the notebook has the focus: @cell: reads it
        chat = person.open_agent(agent["id"])
        state = chat.locator(".shard-steer-state")
        # typing @ opens a completion list of mention kinds, then of files and cells
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)
        box.click()
        box.press_sequentially("see @fi")
        options = chat.locator(".shard-mention-item code")
        expect(options).to_have_text(["@file:"])
        box.press("Tab")
        box.press_sequentially("no")
        expect(options).to_have_text(["@file:notes.txt"])
        box.press("Tab")
        box.press_sequentially("and @cell:")
        expect(options).to_have_text(["@cell:1", "@cell:2"])
        expect(chat.locator(".shard-mention-item").nth(1)).to_contain_text("print(threshold)")
        box.press("Tab")
        expect(box).to_have_value("see @file:notes.txt and @cell:1 ")
        box.fill("")
        person.send(chat, "read @file:../outside.txt")
        expect(state).to_have_text(f"@file:../outside.txt is outside the agent's folder {lab.root}")
        person.send(chat, "read @file:link.txt")
        expect(state).to_have_text(
            f"@file:link.txt is outside the agent's folder {lab.root} "
            f"(it resolves to {(lab.base / 'outside.txt').resolve()})"
        )
        person.send(chat, "read @file:missing.txt")
        expect(state).to_have_text("there is no text file missing.txt in the agent's folder")
        person.send(chat, "read @cell:9")
        expect(state).to_have_text(
            "there is no cell 9 in cells.ipynb (a position from 1, or an id)"
        )
        assert len(fake_llm.requests) == before  # none of them was sent

        person.send(chat, "does @cell:2 match @file:notes.txt?")
        expect(chat).to_contain_text("The cell reads the notes.", timeout=60_000)
        fake_llm.wait_idle()
        [sent] = [r.body for r in fake_llm.requests[before:]]
        text = json.dumps(sent["messages"])
        assert '<context kind=\\"output\\" label=\\"@cell:2 from cells.ipynb\\">' in text
        assert '<cell notebook=\\"cells.ipynb\\" id=\\"cell-1\\"' in text
        assert "print(threshold)" in text
        assert '<context kind=\\"file\\" label=\\"@file:notes.txt\\">\\nthe threshold is 42' in text
        assert "not for the agent" not in text

        # @output: a cell's outputs alone, after the notebook ran
        page.locator(".lm-TabBar-tab", has_text="cells.ipynb").first.click()
        ready = '.jp-NotebookPanel-toolbar .jp-DebuggerBugButton[title="Enable Debugger"]'
        page.locator(ready).first.wait_for(state="attached", timeout=90_000)
        cells.nth(0).locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        page.keyboard.press("Shift+Enter")
        expect(cells.nth(1).locator(".jp-OutputArea-output")).to_contain_text("42")
        page.locator(".lm-TabBar-tab", has_text="Shard:").first.click()
        person.send(chat, "what did @output:1 print?")
        expect(state).to_have_text("cell 1 of cells.ipynb has no outputs")
        fake_llm.push({"text": "It printed 42."})
        person.send(chat, "what did @output:2.1 print?")
        expect(chat).to_contain_text("It printed 42.", timeout=60_000)
        fake_llm.wait_idle()
        [_, sent] = [r.body for r in fake_llm.requests[before:]]
        text = json.dumps(sent["messages"])
        label = '<context kind=\\"output\\" label=\\"@output:2.1 from cells.ipynb\\">\\n'
        assert label + '<output n=\\"1\\" type=\\"stream\\">\\n[stdout]\\n42' in text
    finally:
        context.close()
        lab.shutdown_kernels()
        lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
