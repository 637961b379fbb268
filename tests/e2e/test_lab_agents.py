"""The Shard JupyterLab extension with gateway agents: two browsers on one agent, New agent, Stop,
Kill — the sidebar and chat tabs render from the agent's event stream, so every tab sees all.

Each browser context is a separate person (its own anonymous Jupyter user and tab label).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.e2e.conftest import save_screenshot
from tests.e2e.lab import LabServer
from tests.e2e.lab_page import LabPage

pytestmark = pytest.mark.e2e

Agent = dict[str, Any]
MakeAgent = Callable[..., Agent]


@pytest.fixture
def people(
    browser: Browser, lab: LabServer, request: pytest.FixtureRequest
) -> Iterator[list[LabPage]]:
    """Two people, each in their own browser context, both on Lab. Ask for it after
    `make_agent`: fixtures end in reverse order, so a failure's screenshots show the agents
    before that fixture kills them (a screenshot after the kill looked like the cause)."""
    contexts: list[BrowserContext] = [
        browser.new_context(viewport={"width": 1300, "height": 1000}) for _ in range(2)
    ]
    pages = [LabPage(context.new_page(), lab) for context in contexts]
    yield pages
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for name, person in zip("AB", pages, strict=True):
            save_screenshot(person.page, f"{request.node.name}-{name}-failure.png")
    for context in contexts:
        context.close()


@pytest.fixture
def make_agent(lab: LabServer, tmp_path: Path) -> Iterator[MakeAgent]:
    """Creates a gateway agent playing `steps` in a fresh project; kills them all afterwards."""
    made: list[str] = []

    def make(steps: list[dict[str, Any]], name: str, **create: Any) -> Agent:
        work = tmp_path / name
        work.mkdir()
        (work / "greet.py").write_text('def greet(name):\n    return "Hello " + nam\n')
        script = tmp_path / f"{name}-script.json"
        script.write_text(json.dumps({"name": name, "steps": steps}))
        body = {"cwd": str(work), "model": f"scripted/{script}", "name": name, **create}
        agent = lab.api("POST", "/shard/api/agents", body)
        made.append(agent["id"])
        return agent

    yield make
    for agent_id in made:
        lab.api("DELETE", f"/shard/api/agents/{agent_id}")


FIX_STEPS = [
    {
        "text": "Reading greet.py before I change anything.",
        "delay": 0.5,
        "tool_calls": [{"name": "read", "input": {"path": "greet.py"}}],
    },
    {
        "text": "The name is misspelt; fixing it.",
        "tool_calls": [
            {
                "name": "edit",
                "input": {"path": "greet.py", "old_string": "+ nam\n", "new_string": "+ name\n"},
            }
        ],
    },
    {"text": "Fixed greet.py."},
]


def test_two_people_on_one_agent_share_the_turn_and_the_answer(
    make_agent: MakeAgent, people: list[LabPage]
) -> None:
    a, b = people
    agent = make_agent(FIX_STEPS, "shared-fix")
    work = Path(agent["cwd"])
    for person in people:
        person.open()
    chat_a, chat_b = a.open_agent(agent["id"]), b.open_agent(agent["id"])

    a.send(chat_a, "fix the typo in greet.py")
    for chat in (chat_a, chat_b):  # both stream the same transcript
        expect(chat.locator(".shard-msg-user")).to_contain_text("fix the typo in greet.py")
        expect(chat).to_contain_text("Reading greet.py before I change anything.")
    dialogs = [chat.locator(".shard-permission") for chat in (chat_a, chat_b)]
    for dialog in dialogs:  # the same pending prompt, with the diff of what will change
        expect(dialog).to_be_visible(timeout=30_000)
        expect(dialog.locator(".shard-diff-del")).to_contain_text('return "Hello " + nam')
        expect(dialog.locator(".shard-diff-add")).to_contain_text('return "Hello " + name')
        expect(dialog.locator(".shard-permission-why")).to_contain_text("no rule allows")
    assert "+ nam\n" in (work / "greet.py").read_text()
    save_screenshot(a.page, "e2e-lab-two-people-1-A-asked.png")

    b_label = b.tab_label()
    dialogs[1].get_by_role("button", name="Allow once").click()
    card_a = chat_a.locator(".shard-tool").filter(has_text="edit")
    card_b = chat_b.locator(".shard-tool").filter(has_text="edit")
    expect(card_a.locator(".shard-tool-decision")).to_contain_text(
        "✓ allowed once — by ", timeout=10_000
    )
    decision_a = card_a.locator(".shard-tool-decision").inner_text()
    assert decision_a.startswith("✓ allowed once — by "), decision_a
    assert decision_a.endswith(b_label), (decision_a, b_label)  # B's human label, not an id
    assert "widget-" not in decision_a
    assert "lab-" not in decision_a
    expect(card_b.locator(".shard-tool-decision")).to_have_text("✓ allowed once — by you")
    for dialog in dialogs:  # folded away on both
        expect(dialog).to_have_count(0)
    for chat in (chat_a, chat_b):
        expect(chat).to_contain_text("Fixed greet.py.", timeout=30_000)
        expect(chat.locator(".shard-tool .shard-diff-add")).to_contain_text("+ name")
    assert (work / "greet.py").read_text() == 'def greet(name):\n    return "Hello " + name\n'
    save_screenshot(a.page, "e2e-lab-two-people-2-A-folded.png")

    a.page.reload()  # the whole transcript comes back from the agent's log
    a.page.wait_for_selector("#shard-agents", state="attached", timeout=90_000)
    chat_a = a.open_agent(agent["id"])
    expect(chat_a.locator(".shard-msg-user")).to_contain_text("fix the typo in greet.py")
    expect(chat_a).to_contain_text("Reading greet.py before I change anything.")
    expect(chat_a).to_contain_text("Fixed greet.py.")
    expect(chat_a.locator(".shard-tool")).to_have_count(2)
    expect(chat_a.locator(".shard-tool-decision")).to_contain_text(b_label)


def test_stop_ends_a_running_bash_in_every_view(
    make_agent: MakeAgent, people: list[LabPage], lab: LabServer
) -> None:
    a, b = people
    steps = [
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30", "timeout": 60}}]},
        {"text": "never reached"},
    ]
    agent = make_agent(steps, "sleeper", permissions={"allow": ["Bash(sleep:*)"]})
    for person in people:
        person.open()
    chats = [a.open_agent(agent["id"]), b.open_agent(agent["id"])]
    a.send(chats[0], "sleep a while")
    for chat in chats:
        expect(chat.locator(".shard-status-text")).to_contain_text("running bash", timeout=30_000)
        expect(chat.locator(".shard-tool-decision")).to_contain_text("by rule Bash(sleep:*)")
    a.show_sidebar()  # the badge says what the agent does: a tool runs, nothing streams
    badge = a.agent_row("sleeper").locator(".shard-status-badge")
    expect(badge).to_have_text("running a tool", timeout=15_000)
    save_screenshot(a.page, "e2e-lab-stop-1-running.png")

    started = time.monotonic()
    b.page.locator(f"#shard-chat-{agent['id']} .shard-abort").click()
    for chat in chats:
        expect(chat.locator(".shard-tool-status")).to_have_text("aborted", timeout=10_000)
        expect(chat.locator(".shard-status-text")).to_have_text("idle", timeout=10_000)
    took = time.monotonic() - started
    expect(chats[0].locator(".shard-tool-result-error")).to_contain_text("stopped while running")
    # how fast is bench material (no timed assertion here); the expects above bound it
    print(f"stop → both views idle: {took:.2f} s")
    events = lab.api("GET", f"/shard/api/agents/{agent['id']}/events")["events"]
    ends = [e for e in events if e["type"] == "turn_end"]
    assert [e["reason"] for e in ends] == ["aborted"]


def test_kill_shows_stopped_everywhere_and_restart_reattaches_every_view(
    make_agent: MakeAgent, people: list[LabPage]
) -> None:
    a, b = people
    agent = make_agent([{"text": "Hello from before the kill."}, {"text": "Back."}], "killable")
    for person in people:
        person.open()
    chats = [a.open_agent(agent["id"]), b.open_agent(agent["id"])]
    a.send(chats[0], "say hello")
    for chat in chats:
        expect(chat).to_contain_text("Hello from before the kill.", timeout=30_000)

    a.show_sidebar()
    row = a.agent_row("killable")
    row.get_by_role("button", name="Kill").click()
    a.page.locator(".jp-Dialog").get_by_role("button", name="Kill").click()
    for chat in chats:
        banner = chat.locator(".shard-banner")
        expect(banner).to_contain_text("stopped", timeout=15_000)
        expect(banner).to_contain_text("Restart?")
        expect(chat.locator(".shard-composer-input")).to_be_disabled()
    expect(a.agent_row("killable").locator(".shard-status-badge")).to_have_text("stopped")
    expect(a.agent_row("killable").get_by_role("button", name="Restart & open")).to_be_visible()
    save_screenshot(b.page, "e2e-lab-kill-B-stopped.png")

    chats[1].locator(".shard-banner").get_by_role("button", name="Restart").click()
    for chat in chats:  # A follows the new kernel by itself
        expect(chat.locator(".shard-banner")).to_be_hidden(timeout=30_000)
        expect(chat.locator(".shard-composer-input")).to_be_enabled()
        expect(chat).to_contain_text("Hello from before the kill.")
    a.send(chats[0], "again")
    for chat in chats:
        expect(chat).to_contain_text("Back.", timeout=30_000)


def test_new_agent_form_creates_an_agent_in_the_chosen_folder(
    people: list[LabPage], lab: LabServer
) -> None:
    a = people[0]
    (lab.root / "made-here").mkdir()
    a.open()
    a.command("shard:new-agent")
    form = a.sidebar.locator("form.shard-new-agent")
    expect(form).to_be_visible(timeout=30_000)
    form.locator(".shard-new-folder").fill("../outside")
    form.get_by_role("button", name="Create").click()
    expect(form.locator(".shard-form-message")).to_have_text(
        "the folder must be inside the server's root"
    )
    form.locator(".shard-new-folder").fill("made-here")
    form.locator(".shard-new-name").fill("formed")
    form.locator(".shard-new-mode").select_option("plan")
    form.get_by_role("button", name="Create").click()

    chat = a.page.locator(".shard-chat").filter(has=a.page.locator(".shard-composer-input"))
    expect(chat).to_be_visible(timeout=60_000)
    agents = {x["name"]: x for x in lab.api("GET", "/shard/api/agents")["agents"]}
    try:
        assert "formed" in agents
        assert Path(agents["formed"]["cwd"]) == (lab.root / "made-here").resolve()
        assert agents["formed"]["mode"] == "plan"
        expect(a.agent_row("formed")).to_be_visible()
        expect(a.page.locator(".lm-TabBar-tab", has_text="Shard: formed")).to_be_visible()
        save_screenshot(a.page, "e2e-lab-new-agent.png")
    finally:
        if "formed" in agents:
            lab.api("DELETE", f"/shard/api/agents/{agents['formed']['id']}")
