"""An agent's chat in Notebook 7, where it lives in the narrow right-hand side panel beside the
notebook (about 280 px): it says whose it is, a permission prompt below a long reply is in view
and focused and answered by one key, nothing in it is cut off at the panel's edge (Stop, the
prompt's buttons, `/status`'s table), `/status` answers in it, and the sidebar's
"Restart & open" restarts the agent of the open chat.

The window is 725 px high, as in issue 34's report.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.test_lab_chat_follow import EDIT, IN_VIEW, LONG

pytestmark = pytest.mark.e2e

CUT_OFF = """(chat) => {
  const edge = Math.min(chat.getBoundingClientRect().right, window.innerWidth) + 1;
  const shown = chat.querySelectorAll("button, input, textarea, select, td");
  return [...shown]
    .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().right > edge)
    .map((el) => el.getAttribute("aria-label") || el.textContent.trim().slice(0, 40));
}"""
"""the controls and table cells that reach past the chat's (or the window's) right edge"""


@pytest.fixture
def page7(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 725})
    page = context.new_page()
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page, f"{request.node.name}-failure.png")
    context.close()


@pytest.fixture
def agent(lab: LabServer, tmp_path: Path) -> Iterator[dict[str, Any]]:
    work = tmp_path / "nb7-work"
    work.mkdir()
    (work / "greet.py").write_text('def greet(name):\n    return "Hello " + nam\n')
    steps = [
        {"text": LONG, "tool_calls": [{"name": "edit", "input": EDIT}]},
        {"text": LONG + "\n\nFixed greet.py."},
        {"text": "Back after the restart."},
    ]
    script = tmp_path / "nb7.json"
    script.write_text(json.dumps({"name": "nb7", "steps": steps}))
    name = f"seventh-{len(lab.api('GET', '/shard/api/agents')['agents'])}"  # names are unique
    made = lab.api("POST", "/shard/api/agents",
                   {"cwd": str(work), "model": f"scripted/{script}", "name": name})  # fmt: skip
    yield made
    lab.api("DELETE", f"/shard/api/agents/{made['id']}")


def _show_sidebar(page: Page) -> Locator:
    page.get_by_role("menuitem", name="View").click()
    page.locator(".lm-Menu-itemLabel", has_text="Left Sidebar").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text="Show Shard agents").first.click()
    sidebar = page.get_by_role("region", name="Shard agents")
    expect(sidebar).to_be_visible()
    return sidebar


def _send(chat: Locator, text: str) -> None:
    box = chat.locator(".shard-composer-input")
    box.fill(text)
    box.press("Enter")


def test_a_notebook_7_chat_keeps_everything_in_view_and_restarts_from_the_sidebar(
    lab: LabServer, page7: Page, agent: dict[str, Any]
) -> None:
    lab.notebook("beside.ipynb", "python3", ["1 + 1"])
    page7.goto(f"{lab.url}/notebooks/beside.ipynb?token={lab.token}")
    page7.locator(".jp-Notebook").wait_for(timeout=90_000)
    page7.wait_for_selector("#shard-agents", state="attached", timeout=90_000)
    row = _show_sidebar(page7).locator(f'[data-agent-id="{agent["id"]}"]')
    row.get_by_role("button", name="Open").click()
    chat = page7.locator(f"#shard-chat-{agent['id']}")
    expect(chat.get_by_role("heading", name=f"Shard: {agent['name']}")).to_be_visible()
    expect(chat.locator(".shard-composer-input")).to_be_enabled(timeout=60_000)

    _send(chat, "fix the typo")
    dialog = chat.locator(".shard-permission")
    expect(dialog).to_be_visible(timeout=30_000)
    allow = dialog.get_by_role("button", name="Allow once")
    expect(allow).to_be_focused(timeout=5_000)
    transcript = chat.locator(".shard-transcript")
    assert page7.evaluate(IN_VIEW, [allow.element_handle(), transcript.element_handle()])
    expect(chat.locator(".shard-abort")).to_be_in_viewport(ratio=1)
    assert chat.evaluate(CUT_OFF) == [], "cut off at the panel's edge"
    assert serious_violations(page7, f"#shard-chat-{agent['id']}") == []
    save_screenshot(page7, "e2e-notebook7-chat-1-prompt.png")

    page7.keyboard.press("y")
    expect(chat.locator(".shard-msg-assistant").last).to_contain_text(
        "Fixed greet.py.", timeout=30_000
    )
    expect(chat.locator(".shard-composer-input")).to_be_focused()
    _send(chat, "/status")
    table = chat.locator("table").filter(has_text="pending asks").last
    expect(table).to_contain_text(agent["id"], timeout=30_000)
    expect(table).to_contain_text(agent["cwd"])
    assert chat.evaluate(CUT_OFF) == [], "the /status table is cut off"
    save_screenshot(page7, "e2e-notebook7-chat-2-status.png")

    lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
    expect(chat.locator(".shard-banner")).to_contain_text("stopped", timeout=15_000)
    row.get_by_role("button", name="Restart & open").click()
    expect(chat.locator(".shard-banner")).to_be_hidden(timeout=60_000)
    expect(chat.locator(".shard-composer-input")).to_be_enabled()
    _send(chat, "again")
    expect(chat).to_contain_text("Back after the restart.", timeout=30_000)
    save_screenshot(page7, "e2e-notebook7-chat-3-restarted.png")


def test_mentions_in_a_notebook_7_chat_complete_and_reach_the_agent(
    lab: LabServer, page7: Page, tmp_path: Path
) -> None:
    """`@var:` and `@cell:` in the chat of Notebook 7's side panel: the notebook beside it is the
    one they read; both complete (the kernel's variables, the notebook's cells) and reach the
    agent's log as context named with the notebook; a missing cell is said and nothing sent."""
    work = tmp_path / "nb7-mentions"
    work.mkdir()
    script = tmp_path / "mentions7.json"
    script.write_text(json.dumps({"name": "m7", "steps": [{"text": "Forty-one, seen."}]}))
    spec = {"cwd": str(work), "model": f"scripted/{script}", "name": "mentions7"}
    made = lab.api("POST", "/shard/api/agents", spec)
    lab.notebook("mentions7.ipynb", "python3", ["answer = 41", "print(answer + 1)"])
    try:
        page7.goto(f"{lab.url}/notebooks/mentions7.ipynb?token={lab.token}")
        page7.locator(".jp-Notebook").wait_for(timeout=90_000)
        page7.wait_for_selector("#shard-agents", state="attached", timeout=90_000)
        lab.wait_kernel_connected("mentions7.ipynb")
        cells = page7.locator(".jp-Notebook .jp-Cell")
        cells.nth(0).locator(".jp-InputArea-editor").click()
        page7.keyboard.press("Shift+Enter")
        expect(cells.nth(0).locator(".jp-InputPrompt")).to_contain_text("[1]", timeout=60_000)
        row = _show_sidebar(page7).locator(f'[data-agent-id="{made["id"]}"]')
        row.get_by_role("button", name="Open").click()
        chat = page7.locator(f"#shard-chat-{made['id']}")
        box = chat.locator(".shard-composer-input")
        expect(box).to_be_enabled(timeout=60_000)

        _send(chat, "and @cell:9?")
        expect(chat.locator(".shard-steer-state")).to_have_text(
            "there is no cell 9 in mentions7.ipynb (a position from 1, or an id)"
        )
        expect(box).to_have_value("and @cell:9?")

        box.fill("")
        box.press_sequentially("what is @var:ans")  # one kernel request, filtered per key
        options = chat.locator(".shard-mention-item code")
        expect(options).to_have_text(["@var:answer"])
        box.press("Tab")
        box.press_sequentially("in @cell:")
        expect(options).to_have_text(["@cell:1", "@cell:2"])
        box.press("Tab")
        expect(box).to_have_value("what is @var:answer in @cell:1 ")
        box.press("Enter")
        expect(chat).to_contain_text("Forty-one, seen.", timeout=30_000)
        save_screenshot(page7, "e2e-notebook7-mentions.png")
        home = Path(lab.env["SHARD_HOME"])
        [log] = list(home.glob(f"agents/{made['id']}/sessions/*.jsonl"))
        text = log.read_text()
        assert "@var:answer from mentions7.ipynb" in text
        assert "repr: 41" in text
        assert "@cell:1 from mentions7.ipynb" in text
        assert "answer = 41" in text
    finally:
        lab.api("DELETE", f"/shard/api/agents/{made['id']}")
