"""The chat tab follows the conversation: the transcript is the one scroller (header, Stop and the
composer stay put), it stays at the bottom while content arrives unless the person scrolled up
(then a "↓ new activity" pill), and a new permission prompt is scrolled into view and takes the
focus, so the keyboard answers it: Y allows once. "Restart & open" restarts an open chat.

The window is 725 px high, as in the report this answers (the prompt's Allow was at 1,074 px).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

HEIGHT = 725
LONG = "\n\n".join(
    f"Line {i} of a long explanation, so the transcript overflows." for i in range(40)
)

IN_VIEW = """([el, box]) => {
  const r = el.getBoundingClientRect(), v = box.getBoundingClientRect();
  return r.top >= v.top - 1 && r.bottom <= v.bottom + 1 && r.bottom <= window.innerHeight;
}"""


@pytest.fixture
def person(browser: Browser, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[LabPage]:
    context = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
    page = LabPage(context.new_page(), lab)
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page.page, f"{request.node.name}-failure.png")
    context.close()


@pytest.fixture
def agent_of(lab: LabServer, tmp_path: Path) -> Iterator[Any]:
    made: list[str] = []

    def make(name: str, steps: list[dict[str, Any]], **create: Any) -> dict[str, Any]:
        work = tmp_path / name
        work.mkdir()
        (work / "greet.py").write_text('def greet(name):\n    return "Hello " + nam\n')
        script = tmp_path / f"{name}.json"
        script.write_text(json.dumps({"name": name, "steps": steps}))
        body = {"cwd": str(work), "model": f"scripted/{script}", "name": name, **create}
        agent = lab.api("POST", "/shard/api/agents", body)
        made.append(agent["id"])
        return agent

    yield make
    for agent_id in made:
        lab.api("DELETE", f"/shard/api/agents/{agent_id}")


EDIT = {"path": "greet.py", "old_string": "+ nam\n", "new_string": "+ name\n"}


def in_view(page: Page, element: Locator, box: Locator) -> bool:
    return bool(page.evaluate(IN_VIEW, [element.element_handle(), box.element_handle()]))


def focused_label(page: Page) -> str:
    return str(page.evaluate("() => document.activeElement?.getAttribute('aria-label') ?? ''"))


def test_a_prompt_below_a_long_reply_is_in_view_focused_and_answered_by_one_key(
    person: LabPage, agent_of: Any
) -> None:
    steps = [
        {"text": LONG, "tool_calls": [{"name": "edit", "input": EDIT}]},
        {"text": LONG + "\n\nFixed greet.py."},
    ]
    agent = agent_of("follower", steps)
    person.open()
    chat = person.open_agent(agent["id"])
    transcript = chat.locator(".shard-transcript")
    person.send(chat, "fix the typo")

    dialog = chat.locator(".shard-permission")
    expect(dialog).to_be_visible(timeout=30_000)
    allow = dialog.get_by_role("button", name="Allow once")
    expect(allow).to_be_focused(timeout=5_000)
    expect(allow).to_have_attribute("aria-keyshortcuts", "Y")
    assert in_view(person.page, allow, transcript), "Allow once is out of the chat's view"
    scroll_top = transcript.evaluate("t => t.scrollTop")
    assert scroll_top > 0, "the transcript did not scroll to the prompt"
    # the header with Stop and the composer stay where they are: only the transcript scrolls
    assert chat.locator(".shard-chat-view").evaluate("v => v.scrollTop") == 0
    expect(chat.locator(".shard-abort")).to_be_in_viewport()
    expect(chat.locator(".shard-composer-input")).to_be_in_viewport()
    save_screenshot(person.page, "e2e-chat-follow-1-prompt-focused.png")
    found = serious_violations(person.page, f"#shard-chat-{agent['id']}")
    assert found == [], found

    person.page.keyboard.press("y")  # one key press answers it
    decision = chat.locator(".shard-tool-decision").first
    expect(decision).to_contain_text("✓ allowed once — by you", timeout=10_000)
    last = chat.locator(".shard-msg-assistant").last
    expect(last).to_contain_text("Fixed greet.py.", timeout=30_000)
    usage = chat.locator(".shard-usage")
    expect(usage).to_be_in_viewport()
    person.page.wait_for_function(
        "t => t.scrollHeight - t.scrollTop - t.clientHeight < 40", arg=transcript.element_handle()
    )
    # the answered prompt gave the focus back to where it was: the composer
    expect(chat.locator(".shard-composer-input")).to_be_focused()
    save_screenshot(person.page, "e2e-chat-follow-2-answered-at-bottom.png")


def test_scrolled_up_the_view_stays_and_a_pill_says_there_is_more(
    person: LabPage, agent_of: Any
) -> None:
    steps = [{"text": LONG}, {"text": "Second answer.\n\n" + LONG, "delay": 2.0}]
    agent = agent_of("pill", steps)
    person.open()
    chat = person.open_agent(agent["id"])
    transcript = chat.locator(".shard-transcript")
    person.send(chat, "first")
    expect(chat.locator(".shard-status-text")).to_have_text("idle", timeout=30_000)
    expect(chat.locator(".shard-msg-assistant")).to_contain_text("Line 39")
    person.send(chat, "second")
    transcript.evaluate("t => { t.scrollTop = 0; t.dispatchEvent(new Event('scroll')); }")
    pill = chat.locator(".shard-new-activity")
    expect(pill).to_be_visible(timeout=30_000)
    expect(chat.locator(".shard-status-text")).to_have_text("idle", timeout=30_000)
    assert transcript.evaluate("t => t.scrollTop") < 40, "the view jumped while scrolled up"
    save_screenshot(person.page, "e2e-chat-follow-3-pill.png")
    pill.click()
    expect(pill).to_be_hidden()
    expect(chat.locator(".shard-usage")).to_be_in_viewport()


def test_restart_and_open_restarts_the_agent_of_an_open_chat(
    person: LabPage, agent_of: Any, lab: LabServer
) -> None:
    agent = agent_of("restartable", [{"text": "Before."}, {"text": "After."}])
    person.open()
    chat = person.open_agent(agent["id"])
    person.send(chat, "hello")
    expect(chat).to_contain_text("Before.", timeout=30_000)
    lab.api("DELETE", f"/shard/api/agents/{agent['id']}")
    expect(chat.locator(".shard-banner")).to_contain_text("stopped", timeout=15_000)
    person.show_sidebar()
    row = person.agent_row("restartable")
    restart = row.get_by_role("button", name="Restart & open")
    expect(restart).to_be_visible(timeout=15_000)
    started = time.monotonic()
    restart.click()
    expect(chat.locator(".shard-banner")).to_be_hidden(timeout=30_000)
    expect(chat.locator(".shard-composer-input")).to_be_enabled()
    print(f"Restart & open → chat attached: {time.monotonic() - started:.2f} s")
    expect(row.locator(".shard-status-badge")).to_have_text("idle", timeout=15_000)
    person.send(chat, "again")
    expect(chat).to_contain_text("After.", timeout=30_000)
    save_screenshot(person.page, "e2e-chat-restart-and-open.png")
