"""The agent's terminal in Lab: its tool calls render as a terminal card with the screen, "Open
in Lab" (on the card, or the terminal's button on the agent's sidebar row) opens Lab's own
terminal widget on the same server terminal, what a person types there is what the agent's next
`terminal_read` shows, the card of a running `terminal_wait` is redrawn by its updates, and the
agent's screen is drawn at the size of the person's window."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

STEPS: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "terminal_open",
                     "input": {"command": "bash --norc -i", "name": "shared"}}]},
    {"tool_calls": [{"name": "terminal_send",
                     "input": {"id": "shared", "text": "export PS1='READY> '"}}]},
    {"tool_calls": [{"name": "terminal_wait",
                     "input": {"id": "shared", "pattern": "READY> $", "timeout": 60}}]},
    {"text": "The terminal is open."},
    {"tool_calls": [{"name": "terminal_read", "input": {"id": "shared"}}]},
    {"text": "I read what you typed."},
    {"tool_calls": [{"name": "terminal_send", "input": {"id": "shared", "text": "bash ticks.sh"}}]},
    {"tool_calls": [{"name": "terminal_wait",
                     "input": {"id": "shared", "pattern": "tick-8", "timeout": 60}}]},
    {"text": "Counted."},
]  # fmt: skip
ALLOW = ["Bash(bash --norc -i)", "Bash(export:*)", "Bash(bash ticks.sh)"]
TICKS = "for i in 1 2 3 4 5 6 7 8; do echo tick-$i; sleep 1; done\n"
"""8 s of output: the wait's card is redrawn by its tool_updates while it runs"""


@pytest.fixture
def person(page: Page, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[LabPage]:
    yield LabPage(page, lab)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        save_screenshot(page, f"{request.node.name}-failure.png")


@pytest.fixture
def agent(
    lab: LabServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    work = tmp_path / "terminal-work"
    work.mkdir()
    (work / "ticks.sh").write_text(TICKS)
    script = tmp_path / "terminal-script.json"
    script.write_text(json.dumps({"name": "terminal", "steps": STEPS}))
    name = f"terminal-{len(lab.api('GET', '/shard/api/agents')['agents'])}"  # names are unique
    body = {"cwd": str(work), "model": f"scripted/{script}", "name": name,
            "permissions": {"allow": ALLOW}}  # fmt: skip
    made = lab.api("POST", "/shard/api/agents", body)
    yield made
    lab.api("DELETE", f"/shard/api/agents/{made['id']}")


SCREEN = """() => {
  const widget = window.jupyterapp.shell.currentWidget;
  const term = widget && widget.content && widget.content._term;
  if (!term) return "";
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i).translateToString(true));
  return lines.join("\\n");
}"""
"""What Lab's terminal widget shows (xterm.js draws on a canvas: its buffer, not the DOM)."""


def _wait_for_screen(page: Page, text: str) -> None:
    page.wait_for_function(f"() => ({SCREEN})().includes({json.dumps(text)})", timeout=30_000)


def test_open_the_agents_terminal_from_its_card_and_type_into_it(
    person: LabPage, agent: dict[str, Any], lab: LabServer
) -> None:
    person.open()
    chat = person.open_agent(agent["id"])
    person.send(chat, "open a terminal")
    expect(chat).to_contain_text("The terminal is open.", timeout=90_000)
    card = chat.locator(".shard-terminal").last
    expect(card.locator(".shard-terminal-screen")).to_contain_text("READY>")
    expect(card.locator(".shard-terminal-state")).to_have_text("running")
    shared = [t["name"] for t in lab.api("GET", f"/shard/api/agents/{agent['id']}")["terminals"]]
    assert len(shared) == 1, shared
    assert shared[0] in [t["name"] for t in lab.api("GET", "/api/terminals")]
    save_screenshot(person.page, "e2e-lab-terminal-1-card.png")

    card.get_by_role("button", name="Open in Lab").click()
    tab = person.page.locator(".lm-TabBar-tab", has_text=shared[0])
    expect(tab).to_be_visible(timeout=30_000)
    _wait_for_screen(person.page, "READY>")
    person.page.locator(".jp-Terminal:visible .xterm").click()
    person.page.keyboard.type("echo typed-in-lab-$((6*7))\n")
    _wait_for_screen(person.page, "typed-in-lab-42")
    save_screenshot(person.page, "e2e-lab-terminal-2-typed.png")

    person.command("shard:open-agent", {"agent": agent["id"]})
    person.send(chat, "what did I type?")
    expect(chat).to_contain_text("I read what you typed.", timeout=90_000)
    read = chat.locator(".shard-terminal").last
    expect(read.locator(".shard-terminal-screen")).to_contain_text("typed-in-lab-42")

    person.send(chat, "count the ticks")
    live = chat.locator(".shard-tool-partial .shard-terminal-screen").last
    expect(live).to_contain_text("tick-2", timeout=60_000)  # drawn while the wait runs
    assert "tick-8" not in live.inner_text(), "an update, before the result"
    save_screenshot(person.page, "e2e-lab-terminal-3-live.png")
    expect(chat).to_contain_text("Counted.", timeout=90_000)
    final = chat.locator(".shard-terminal-screen").last
    expect(final).to_contain_text("tick-8")
    expect(chat.locator(".shard-tool-partial")).to_have_count(0)


TERM_SIZE = """() => {
  const term = window.jupyterapp.shell.currentWidget?.content?._term;
  return term ? [term.rows, term.cols] : null;
}"""


def test_the_sidebar_opens_the_agents_terminal_and_the_agent_sees_the_persons_size(
    browser: Browser, agent: dict[str, Any], lab: LabServer, request: pytest.FixtureRequest
) -> None:
    context = browser.new_context(viewport={"width": 900, "height": 640})  # a small window
    person = LabPage(context.new_page(), lab)
    try:
        person.open()
        chat = person.open_agent(agent["id"])
        person.send(chat, "open a terminal")
        expect(chat).to_contain_text("The terminal is open.", timeout=90_000)
        [terminal] = lab.api("GET", f"/shard/api/agents/{agent['id']}")["terminals"]
        assert terminal["label"] == "shared", terminal

        person.show_sidebar()
        row = person.agent_row(agent["name"])
        row.get_by_role("button", name="Open terminal shared in Lab").click()
        tab = person.page.locator(".lm-TabBar-tab", has_text=terminal["name"])
        expect(tab).to_be_visible(timeout=30_000)
        _wait_for_screen(person.page, "READY>")
        rows, cols = person.page.evaluate(TERM_SIZE)
        assert cols < 120, (rows, cols)  # smaller than the agent's own 32x120
        person.page.locator(".jp-Terminal:visible .xterm").click()
        person.page.keyboard.type("stty size; printf '%0150d\\n' 0\n")
        _wait_for_screen(person.page, f"{rows} {cols}")  # the pty has the person's size
        save_screenshot(person.page, "e2e-lab-terminal-3-sidebar-small.png")

        person.command("shard:open-agent", {"agent": agent["id"]})
        person.send(chat, "what did I type?")
        expect(chat).to_contain_text("I read what you typed.", timeout=90_000)
        screen = chat.locator(".shard-terminal").last.locator(".shard-terminal-screen")
        text = screen.inner_text()
        assert f"{rows} {cols}" in text, text
        wrapped = f"{'0' * cols}\n{'0' * (150 - cols)}"
        assert wrapped in text, f"the agent's screen is drawn {cols} columns wide:\n{text}"
    except Exception:
        save_screenshot(person.page, f"{request.node.name}-failure.png")
        raise
    finally:
        context.close()
